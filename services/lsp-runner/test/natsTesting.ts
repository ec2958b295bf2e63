// Reading what the runner published to a real nats-server.
import { DIAGNOSTICS_STREAM, type DiagnosticsMessage, decodeJson, diagnosticsSubject } from "@lspmesh/events";
import type { JetStreamManager } from "@nats-io/jetstream";

/** The message LSPMESH_DIAG keeps for one file, or undefined. */
export async function storedDiagnostics(
  jsm: JetStreamManager,
  tenant: string,
  workspace: string,
  file: string,
): Promise<{ subject: string; message: DiagnosticsMessage } | undefined> {
  const stored = await jsm.streams
    .getMessage(DIAGNOSTICS_STREAM, { last_by_subj: diagnosticsSubject(tenant, workspace, file) })
    .catch(() => null);
  return stored ? { subject: stored.subject, message: decodeJson<DiagnosticsMessage>(stored.data) } : undefined;
}
