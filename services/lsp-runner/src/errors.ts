// The runner's one error family. Messages are shown to end users: they name the fix and never
// carry stack traces or paths outside the caller's workspace.

export type RunnerErrorCode =
  | "INVALID_ARGUMENT"
  | "OUTSIDE_WORKSPACE"
  | "NOT_FOUND"
  | "NO_LANGUAGE_SERVER"
  | "SYMBOL_NOT_FOUND"
  | "SERVER_STARTING"
  | "SERVER_FAILED"
  | "TIMEOUT"
  | "UNSUPPORTED"
  | "FILE_TOO_LARGE"
  /** A file changed after the edit was computed for it (version or content hash differ). */
  | "STALE_EDIT"
  | "UNAVAILABLE";

export class RunnerError extends Error {
  constructor(
    readonly code: RunnerErrorCode,
    message: string,
    /** `cause`: the underlying error, kept for the runner's own decisions; never shown. */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "RunnerError";
  }
}

export const invalidArgument = (message: string) => new RunnerError("INVALID_ARGUMENT", message);
