// Helpers for tests against a real nats-server: waiting for a state the runner reaches
// asynchronously (a JetStream message, a KV entry, a status event), without timing assertions.
import { DIAGNOSTICS_STREAM, type DiagnosticsMessage, decodeJson, diagnosticsSubject } from "@lspmesh/events";
import type { JetStreamManager } from "@nats-io/jetstream";

/** Reads until accept(value) holds; fails with the last value after timeoutMs (a generous bound, not an assertion). */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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
