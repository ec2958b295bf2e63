// The gateway's one error family. Every failure a caller sees carries a stable code (the
// contract's ERROR_CODES, docs/tools.md) and a message that names the fix; nothing else (no stack, no internal path).

import type { ErrorCode } from "@lspmesh/proto";

export { ERROR_CODES, type ErrorCode, isErrorCode } from "@lspmesh/proto";

/** A failure meant for the caller: `message` is shown to the user (or model) as is. */
export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "GatewayError";
  }
}
