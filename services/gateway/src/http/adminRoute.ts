// /admin/v1/…: the admin API (docs/admin-api.md) behind the same front door as /mcp — Host and
// Origin allowlists, bearer authentication — plus the lspmesh:admin scope; then the request is
// read (adminRequest.ts) and carried out (adminService.ts), and its answer written as JSON.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@lspmesh/service-kit";
import { type AdminAnswer, AdminRefusal, refusalAnswer } from "../admin/adminAnswer.js";
import { ADMIN_MAX_BODY_BYTES, parseAdminRequest } from "../admin/adminRequest.js";
import type { AdminService } from "../admin/adminService.js";
import type { Authenticator } from "../auth/authenticator.js";
import { ADMIN_SCOPE, hasScope } from "../auth/principal.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import type { AdmittedMcpRequest } from "../mcp/serving/admittedRequest.js";
import type { Allowlists } from "./allowlists.js";
import { admit, allowedHost, allowedOrigin, authenticatedCaller, type McpGuard, readBody } from "./mcpGuards.js";
import type { ProtectedResource } from "./protectedResource.js";
import { type HttpRefusal, writeRefusal } from "./refusals.js";
import type { Route } from "./routes.js";

export interface AdminRouteOptions {
  /** Absent: the gateway does not take its tenancy from the control plane, and the API is not served. */
  admin: AdminService | undefined;
  allowlists: Allowlists;
  authenticator: Authenticator;
  unauthenticatedLimiter?: TenantLimiter | undefined;
  resource: ProtectedResource;
  logger: Logger;
}

const NOT_SERVED: AdminAnswer = {
  status: 404,
  body: {
    error: "not_found",
    error_description:
      "the admin API needs LSPMESH_CONTROL=nats: this gateway takes tenants, workspaces and keys from files (or serves one local tenant), which the API does not change; run it with LSPMESH_CONTROL=nats (lspmesh admin apply -f loads the files once)",
  },
};

export function adminRoute(options: AdminRouteOptions): Route {
  const admin = options.admin;
  return admin ? servedRoute(admin, options) : (_req, res) => writeAnswer(res, NOT_SERVED);
}

function servedRoute(admin: AdminService, options: AdminRouteOptions): Route {
  const guards: readonly McpGuard[] = [
    allowedHost(options.allowlists),
    allowedOrigin(options.allowlists),
    authenticatedCaller(options.authenticator, options.unauthenticatedLimiter),
    holdsAdminScope,
    // Read only for a caller allowed to send one.
    bodyWithinLimit,
  ];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const admitted = await admit(guards, req, res);
    if (!admitted.ok) await writeGuardRefusal(res, admitted.refusal, () => options.resource.metadataUrl(req));
    else writeAnswer(res, await answerTo(admin, admitted.request));
  }
  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error("admin request failed", { error: String(error) });
      if (!res.headersSent)
        writeAnswer(res, { status: 500, body: { error: "internal", error_description: "internal error" } });
      else res.end();
    });
  };
}

async function answerTo(admin: AdminService, request: AdmittedMcpRequest): Promise<AdminAnswer> {
  try {
    const body = request.body?.toString("utf8") ?? "";
    if (body !== "") requireJson(request.req);
    const parsed = parseAdminRequest({ method: request.req.method ?? "GET", url: request.req.url ?? "/", body });
    return await admin.handle(parsed, request.principal);
  } catch (error) {
    const answer = refusalAnswer(error);
    if (answer) return answer;
    throw error;
  }
}

const holdsAdminScope: McpGuard = (_req, _res, facts) =>
  facts.principal && hasScope(facts.principal, ADMIN_SCOPE)
    ? { ok: true }
    : { ok: false, refusal: { kind: "insufficient_scope", missing: ADMIN_SCOPE } };

/** The body of a PUT or POST, whole; 413 beyond ADMIN_MAX_BODY_BYTES. */
const bodyWithinLimit: McpGuard = async (req) => {
  if (req.method !== "PUT" && req.method !== "POST") return { ok: true };
  const body = await readBody(req, ADMIN_MAX_BODY_BYTES);
  return body ? { ok: true, facts: { body } } : { ok: false, refusal: { kind: "body_too_large" } };
};

/** A browser form can post text/plain across sites; the API reads JSON only. */
function requireJson(req: IncomingMessage): void {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json")
    throw new AdminRefusal(415, "unsupported_media_type", "send the body as JSON with Content-Type: application/json");
}

/** Bearer challenges, 429 and 413 as on /mcp; a Host or Origin refusal as the API's JSON rather than JSON-RPC. */
function writeGuardRefusal(res: ServerResponse, refusal: HttpRefusal, metadataUrl: () => string): Promise<void> {
  if (refusal.kind !== "forbidden") return writeRefusal(res, refusal, metadataUrl);
  writeAnswer(res, { status: 403, body: { error: "forbidden", error_description: refusal.message } });
  return Promise.resolve();
}

function writeAnswer(res: ServerResponse, answer: AdminAnswer): void {
  res
    .writeHead(answer.status, {
      "content-type": "application/json",
      // Answers may carry a new key's token.
      "cache-control": "no-store",
      ...answer.headers,
    })
    .end(JSON.stringify(answer.body));
}
