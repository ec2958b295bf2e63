// The gateway's one error family. Every failure a caller sees carries a stable code from
// DESIGN.md 3.3 and a message that names the fix; nothing else (no stack, no internal path).

/** Stable error codes of the MCP tools contract (DESIGN.md 3.3). */
export const ERROR_CODES = [
  "INVALID_ARGUMENT",
  "OUTSIDE_WORKSPACE",
  "NOT_FOUND",
  "NO_LANGUAGE_SERVER",
  "SYMBOL_NOT_FOUND",
  "SERVER_STARTING",
  "SERVER_FAILED",
  "TIMEOUT",
  "FORBIDDEN",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "UNSUPPORTED",
  // Extension of DESIGN.md 3.3: an edit computed against content that changed since.
  "STALE_EDIT",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

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
