// Recorded diagnostics as the message published on `lspmesh.diag.<tenant>.<workspace>.<fileKey>`.
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { DiagnosticsMessage } from "@lspmesh/events";
import { convertDiagnostic } from "../engine/diagnosticsQueries.js";
import type { StoredDiagnostics } from "../lsp/session/diagnosticsStore.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { isInside } from "../workspace/workspacePaths.js";

/** Diagnostics per message, at most (default 1 000); the rest are counted in `omitted`. */
export const MAX_PUBLISHED_DIAGNOSTICS = 1_000;

export interface SessionOrigin {
  tenant: string;
  workspace: string;
  /** Real path of the workspace root. */
  root: string;
  language: string;
}

/**
 * The message for diagnostics just recorded, or undefined when they do not belong to the
 * document's current content (a server answering for an older version): only diagnostics whose
 * version and content hash the runner holds are published.
 */
export function diagnosticsMessage(
  origin: SessionOrigin,
  session: LanguageSession,
  uri: string,
  stored: StoredDiagnostics,
): DiagnosticsMessage | undefined {
  const document = session.document(uri);
  if (!document || stored.version !== document.version || stored.contentSha256 !== document.hash) return undefined;
  const absolute = fileURLToPath(uri);
  if (!isInside(origin.root, absolute)) return undefined;
  const kept = stored.diagnostics.slice(0, MAX_PUBLISHED_DIAGNOSTICS);
  const omitted = stored.diagnostics.length - kept.length;
  return {
    v: 1,
    tenant: origin.tenant,
    workspace: origin.workspace,
    file: relative(origin.root, absolute).split(sep).join("/"),
    language: origin.language,
    version: stored.version,
    contentSha256: stored.contentSha256,
    epoch: stored.epoch,
    publishedAt: Date.now(),
    diagnostics: kept.map((d) => convertDiagnostic(d, document.lines, session.encoding, origin.root)),
    ...(omitted > 0 ? { omitted } : {}),
  };
}
