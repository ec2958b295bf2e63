// What an error a language server answered with means for the caller, by its code: work to retry
// (the content changed, the server cancelled), a server still starting, a request the server does
// not know or refuses, or a failure. Messages are cut down and keep no host paths: workspace paths
// become workspace-relative, others only their last segment.
import { ErrorCodes, LSPErrorCodes } from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";

/** Codes after which the same request is simply asked again (bounded by RETRIES). */
const RETRYABLE = new Set<number>([
  LSPErrorCodes.ContentModified,
  LSPErrorCodes.RequestCancelled,
  LSPErrorCodes.ServerCancelled,
]);

/** How often a retryable answer is asked again, and the pause before each retry (ms). */
export const SERVER_ERROR_RETRY_DELAYS_MS = [50, 200, 500];

/** Longest server message passed on, in characters. */
const MAX_MESSAGE = 300;

/** A server's own breakdown, whatever it was asked: a JavaScript engine's, a debug assertion's or a panic's words. */
const BREAKDOWN =
  /Maximum call stack size exceeded|out of memory|Cannot read propert(?:y|ies) of|is not a function|Debug Failure|panicked at/i;

export function isServerBreakdown(message: string): boolean {
  return BREAKDOWN.test(message);
}

/** gopls has loaded no package holding the file: its module did not load, or build tags leave it out. */
const NO_PACKAGE = /no package metadata for file|no packages? (?:found )?for (?:open )?file/i;

/**
 * pyright failing inside its own cancellation handling (`this._token.cancel is not a function`,
 * seen after a cancelled request left a token behind): a glitch of that moment, not of the request.
 */
const CANCELLATION_GLITCH = /_token\.cancel is not a function/;

/** Asking again may succeed; a server that cancelled says so itself (`retriggerRequest`). */
export function isRetryable(error: { code: number; data?: unknown; message?: string }): boolean {
  if (CANCELLATION_GLITCH.test(error.message ?? "")) return true;
  if (!RETRYABLE.has(error.code)) return false;
  if (error.code !== LSPErrorCodes.ServerCancelled) return true;
  return (error.data as { retriggerRequest?: boolean } | undefined)?.retriggerRequest !== false;
}

/** The server has no such method: the UNSUPPORTED serverAnswerError makes of its MethodNotFound. */
export function isMethodNotFound(error: unknown): boolean {
  if (!(error instanceof RunnerError) || error.code !== "UNSUPPORTED") return false;
  return (error.cause as { code?: unknown } | undefined)?.code === ErrorCodes.MethodNotFound;
}

/** The RunnerError for an error a `language` server answered `method` with (kept as its cause). */
export function serverAnswerError(
  language: string,
  method: string,
  error: { code: number; message: string; data?: unknown },
  root: string,
): RunnerError {
  const { code } = error;
  const said = sanitizeServerMessage(error.message, root);
  const cause = { cause: error };
  if (NO_PACKAGE.test(error.message)) {
    return new RunnerError(
      "UNSUPPORTED",
      `the ${language} language server has no package holding this file (${said}), so it cannot answer ${method} there: its module did not load (workspace_status names the server's error: a missing dependency, a go.mod it cannot read), or build constraints (//go:build, a _windows.go name) leave the file out; retrying will not help until that is fixed`,
      cause,
    );
  }
  switch (code) {
    case ErrorCodes.ServerNotInitialized:
      return new RunnerError(
        "SERVER_STARTING",
        `the ${language} language server is still starting; retry in a few seconds`,
      );
    case ErrorCodes.MethodNotFound:
      return new RunnerError("UNSUPPORTED", `the ${language} language server does not support ${method}`, cause);
    case ErrorCodes.InvalidParams:
    case LSPErrorCodes.RequestFailed:
      if (isServerBreakdown(error.message))
        return new RunnerError("SERVER_FAILED", `the ${language} language server failed ${method}: ${said}`, cause);
      // The request was understood and refused for this place (e.g. renaming a keyword).
      return new RunnerError(
        "INVALID_ARGUMENT",
        `the ${language} language server refused ${method} here: ${said}`,
        cause,
      );
    default:
      if (RETRYABLE.has(code)) {
        return new RunnerError(
          "UNAVAILABLE",
          `the ${language} language server kept abandoning ${method} (the workspace is changing); retry shortly`,
          cause,
        );
      }
      return new RunnerError("SERVER_FAILED", `the ${language} language server failed ${method}: ${said}`, cause);
  }
}

/**
 * A server's text with the workspace's own paths and file URIs made workspace-relative (the root
 * itself "."), as every path lspmesh shows is: gopls names files by absolute path in diagnostics.
 */
export function workspaceRelativeText(text: string, root: string): string {
  const rootPath = root.replace(/\/+$/, "");
  if (!text.includes(rootPath) && !text.includes("file://")) return text;
  const rootUri = `file://${encodeURI(rootPath)}`;
  return text
    .replaceAll(`${rootUri}/`, "")
    .replaceAll(`${rootPath}/`, "")
    .replaceAll(rootUri, ".")
    .replaceAll(rootPath, ".");
}

/**
 * Workspace paths relative, other absolute paths reduced to their last segment (module paths and
 * URLs kept: a missing module must be named), network addresses
 * (the runner's resolver or proxy in a failed download, say: the operator's, not the tenant's)
 * replaced, length capped.
 */
export function sanitizeServerMessage(message: string, root: string): string {
  let text = workspaceRelativeText(message, root);
  // Only a path that starts one: not the slashes of a module path (github.com/a/b) or a URL.
  text = text.replace(
    /(?<![\w.@:/~-])(?:file:\/\/)?(?:\/[^\s/'"`:()[\]]+){2,}/g,
    (path) => `…/${path.slice(path.lastIndexOf("/") + 1)}`,
  );
  text = text
    .replace(/\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\](?::\d+)?/g, "<address>")
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, "<address>");
  text = text.replace(/\s+/g, " ").trim();
  if (text.length <= MAX_MESSAGE) return text || "no details given";
  // Cut between words: a module path or URL cut in the middle names nothing.
  const cut = text.lastIndexOf(" ", MAX_MESSAGE);
  return `${text.slice(0, cut > MAX_MESSAGE / 2 ? cut : MAX_MESSAGE)}…`;
}
