// An /mcp request the HTTP front door let through, as MCP serving receives it: who sent it and
// what it carried, its body already read off the socket.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Principal, Scope } from "../../auth/principal.js";

/** Largest MCP request body accepted, in bytes (the MCP SDK's default). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface AdmittedMcpRequest {
  readonly req: IncomingMessage;
  /** The verified caller. */
  readonly principal: Principal;
  /** A POST's whole body; undefined for other methods. */
  readonly body: Buffer | undefined;
  /** That body as JSON; undefined for other methods and for a body that is not JSON. */
  readonly parsed: unknown;
}

/** The caller lacks a scope the request needs: nothing was served, the front door answers 403. */
export interface InsufficientScope {
  readonly kind: "insufficient_scope";
  readonly missing: Scope;
}

/** Serves an admitted request on one path, writing the whole answer to `res`. */
export type ServeOnPath = (request: AdmittedMcpRequest, res: ServerResponse) => Promise<void>;
