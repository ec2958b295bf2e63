// What the admin API answers: a status and a JSON body, and every refusal as one of them. The
// HTTP route writes answers; the request parser and the service only return or throw them.
import { AdminError } from "./controlPlaneChanges.js";

export interface AdminAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A refused admin request that is not an AdminError of the change planning; the message names the fix. */
export class AdminRefusal extends Error {
  constructor(
    readonly status: number,
    /** Machine-readable, e.g. "unknown_route", "writes_unavailable". */
    readonly error: string,
    message: string,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "AdminRefusal";
  }
}

const STATUS_OF_ADMIN_ERROR: Record<AdminError["code"], number> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
};

/** The answer to a refusal (AdminRefusal, AdminError); undefined for any other error (a fault: 500). */
export function refusalAnswer(error: unknown): AdminAnswer | undefined {
  if (error instanceof AdminRefusal)
    return {
      status: error.status,
      body: { error: error.error, error_description: error.message },
      ...(error.headers ? { headers: error.headers } : {}),
    };
  if (error instanceof AdminError)
    return {
      status: STATUS_OF_ADMIN_ERROR[error.code],
      body: { error: error.code.toLowerCase(), error_description: error.message },
    };
  return undefined;
}
