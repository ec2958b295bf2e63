// The runner's one error family. Messages are shown to end users: they name the fix and never
// carry stack traces or paths outside the caller's workspace.

import type { RunnerErrorCode } from "@lspmesh/proto";

export type { RunnerErrorCode } from "@lspmesh/proto";

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
