// A server's refusal or failure, with the failure the server shows (gopls: "Error loading
// workspace: …") when it shows one: that is usually why it could not answer.
import { RunnerError } from "../errors.js";
import { isMethodNotFound } from "../lsp/session/serverErrors.js";

/**
 * `error` with `shownFailure` (the session's note on the failure it shows, when it shows one)
 * appended. Left alone: other codes, and a method the server does not implement at all (no load
 * failure explains that).
 */
export function withShownFailure(error: unknown, shownFailure: string | undefined): unknown {
  if (!shownFailure || !(error instanceof RunnerError)) return error;
  if (error.code !== "SERVER_FAILED" && error.code !== "UNSUPPORTED") return error;
  if (isMethodNotFound(error)) return error;
  return new RunnerError(error.code, `${error.message} (${shownFailure})`, { cause: error.cause });
}
