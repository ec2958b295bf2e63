// restart_language_server: a workspace's server of one language stopped and started again, then
// brought to `ready` within the caller's wait. A new server has answered nothing and knows no file,
// so it is given back the documents the old one had open (or one file of its language) and asked
// for one of their document symbols: its answer, once loading ended, is what `ready` needs.
import { DocumentSymbolRequest } from "vscode-languageserver-protocol";
import { RunnerError, type RunnerErrorCode } from "../errors.js";
import type { LanguageServerConfig } from "../lsp/languages/languageRegistry.js";
import type { SessionRestart } from "../lsp/pool/sessionManager.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { inheritDeadline } from "../lsp/session/requestDeadline.js";
import type { WorkspacePaths } from "../workspace/workspacePaths.js";
import type { AnswerStatus, WorkspaceRef } from "./answers.js";
import type { EngineContext } from "./engineContext.js";

/** How long a restart waits for the new server to be ready when the caller says nothing, ms (default 60 000). */
export const DEFAULT_RESTART_WAIT_MS = 60_000;
/** Documents of the old server given to the new one, at most (the most recently used; default 20). */
const MAX_REOPENED_DOCUMENTS = 20;
/** Codes a server failing to start (or to complete its handshake) is reported with. */
const START_FAILURES = new Set<RunnerErrorCode>(["SERVER_FAILED", "TIMEOUT"]);

export interface RestartServerQuery {
  ref: WorkspaceRef;
  /** Language id, e.g. "typescript". */
  languageId: string;
  /** Wait for readiness until this time (ms since epoch); the start itself is always awaited. */
  readyBy: number;
  signal?: AbortSignal;
}

export interface RestartServerAnswer {
  status: AnswerStatus;
  wasRunning: boolean;
  restarts: number;
}

export async function restartServer(engine: EngineContext, query: RestartServerQuery): Promise<RestartServerAnswer> {
  const { ref, signal } = query;
  if (!query.languageId) throw new RunnerError("INVALID_ARGUMENT", "give the language of the server to restart");
  const paths = await engine.workspacePaths(ref);
  const language = servedLanguage(engine, query.languageId);
  const { sessions } = engine.options;
  const running = (await sessions.sessionsOf(ref.tenant, ref.workspace)).some((s) => s.language.id === language.id);
  let restarted: SessionRestart;
  try {
    restarted = await sessions.restart({ ...ref, root: paths.root }, language);
  } catch (error) {
    // The new server failing to start is this answer's news (state failed), not a failed call.
    if (!(error instanceof RunnerError) || !START_FAILURES.has(error.code)) throw error;
    const slot = sessions.statusOf(ref.tenant, ref.workspace).find((status) => status.language === language.id);
    const status = { state: "failed", language: language.id, server: "", partial: true, note: error.message } as const;
    return { status, wasRunning: running, restarts: slot?.restarts ?? 0 };
  }
  const { session, wasRunning, restarts, previousDocuments } = restarted;
  const opened = await reopen(engine, paths, session, language, previousDocuments);
  await waitUntilReady(session, opened, query.readyBy, signal);
  return { status: restartStatus(engine, session, opened, query.readyBy), wasRunning, restarts };
}

/** The configured language of that id whose server is installed here. */
function servedLanguage(engine: EngineContext, id: string): LanguageServerConfig {
  const { languages } = engine.options;
  const served = languages.installed();
  const language = served.find((candidate) => candidate.id === id);
  if (language) return language;
  const known = served.map((candidate) => candidate.id).join(", ") || "none";
  throw new RunnerError(
    "NO_LANGUAGE_SERVER",
    languages.get(id)
      ? `the ${id} language server is not installed on this runner; it serves: ${known}`
      : `unknown language '${id}'; this runner serves: ${known}`,
  );
}

/**
 * Gives the new server the old one's documents (at most MAX_REOPENED_DOCUMENTS, most recent
 * last), or one file of its language; returns the URIs opened. A file gone or refused meanwhile is
 * left out.
 */
async function reopen(
  engine: EngineContext,
  paths: WorkspacePaths,
  session: LanguageSession,
  language: LanguageServerConfig,
  previousDocuments: readonly string[],
): Promise<string[]> {
  const files = previousDocuments.slice(-MAX_REOPENED_DOCUMENTS).flatMap((uri) => paths.pathOfUri(uri) ?? []);
  if (files.length === 0) {
    const first = await engine.firstFileOf(paths, language);
    if (first) files.push(first);
  }
  const opened: string[] = [];
  for (const path of files) {
    try {
      const file = await paths.resolveFile(path);
      const match = engine.options.languages.forFile(file.path);
      if (match?.language.id !== language.id) continue;
      opened.push((await session.syncDocument(file, match.languageId)).uri);
    } catch (error) {
      if (!(error instanceof RunnerError)) throw error;
    }
  }
  return opened;
}

/**
 * Asks the document symbols of the most recent document (an answer is what `ready` needs; the
 * server loads that file's project for it), then waits for work still in progress; stops at
 * readyBy. Asked directly, not through the answer cache: this wait's short signal must never
 * cancel an identical request of another caller joined to it.
 */
async function waitUntilReady(
  session: LanguageSession,
  opened: readonly string[],
  readyBy: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const budgetMs = () => Math.max(0, readyBy - Date.now());
  const timeout = AbortSignal.timeout(Math.max(1, budgetMs()));
  const waiting = signal ? AbortSignal.any([signal, timeout]) : timeout;
  if (signal) inheritDeadline(signal, waiting);
  const uri = opened.at(-1);
  if (uri && session.capabilities.documentSymbolProvider) {
    // A timeout or an error answer leaves the state to say how far the server got.
    await session.request(DocumentSymbolRequest.type, { textDocument: { uri } }, waiting).catch(() => undefined);
  }
  if (!waiting.aborted) await session.waitUntilIdle(budgetMs(), waiting);
}

/** The new server's state; partial, saying why, unless it is ready. */
function restartStatus(
  engine: EngineContext,
  session: LanguageSession,
  opened: readonly string[],
  readyBy: number,
): AnswerStatus {
  const status = engine.statusOf(session);
  const notes: string[] = [];
  if (session.state !== "ready") {
    status.partial = true;
    const progress = session.progress.summary();
    if (Date.now() >= readyBy) notes.push(`not ready within the wait${progress ? ` (${progress})` : ""}`);
    else if (progress) notes.push(progress);
    if (opened.length === 0)
      notes.push(`no ${session.language.id} file could be opened: it is ready once a query gives it one`);
  }
  if (session.incompleteNote) {
    status.partial = true;
    notes.push(session.incompleteNote);
  }
  status.note = notes.join("; ");
  return status;
}
