// An admin API request (method, path, query, body) read into what it asks for, or refused naming
// the fix: unknown routes and methods, query parameters and body fields, malformed JSON, bad ids.
// Pure: the HTTP route hands in what it read, the service (adminService.ts) carries it out.
import type { ControlTenant } from "@lspmesh/events";
import { AdminRefusal } from "./adminAnswer.js";
import { type BodyShape, eachShape, objectShape, shapeProblem } from "./bodyShape.js";
import { AdminError, checkId } from "./controlPlaneChanges.js";

/** Where the admin API is served. */
export const ADMIN_PATH = "/admin/v1";
/** Largest request body, in bytes: an apply file of thousands of tenants fits. */
export const ADMIN_MAX_BODY_BYTES = 4 * 1024 * 1024;

type Write<T> = T & { readonly dryRun: boolean };

export type AdminRequest =
  | { readonly kind: "tenants.list" }
  | { readonly kind: "tenants.show"; readonly tenant: string }
  | Write<{
      readonly kind: "tenants.put";
      readonly tenant: string;
      readonly limits?: ControlTenant["limits"];
      readonly workspacePattern?: string;
    }>
  | Write<{ readonly kind: "tenants.remove"; readonly tenant: string }>
  | { readonly kind: "workspaces.list"; readonly tenant: string }
  | { readonly kind: "workspaces.show"; readonly tenant: string; readonly workspace: string }
  | Write<{
      readonly kind: "workspaces.put";
      readonly tenant: string;
      readonly workspace: string;
      readonly languages?: string[];
      /** The runners make its folder under the tenant's root when absent. */
      readonly create?: boolean;
      /** Deleted once unused this long, seconds. */
      readonly idleTtlSeconds?: number;
    }>
  | Write<{
      readonly kind: "workspaces.remove";
      readonly tenant: string;
      readonly workspace: string;
      /** The runners also remove its folder. */
      readonly removeFolder?: boolean;
    }>
  | { readonly kind: "keys.list"; readonly tenant: string }
  | Write<{
      readonly kind: "keys.add";
      readonly tenant: string;
      readonly id: string;
      readonly scopes: string[];
      readonly workspaces?: string[];
    }>
  | Write<{ readonly kind: "keys.remove"; readonly tenant: string; readonly id: string }>
  | Write<{ readonly kind: "apply"; readonly file: unknown }>;

export type AdminWrite = Extract<AdminRequest, { dryRun: boolean }>;

export function isWrite(request: AdminRequest): request is AdminWrite {
  return "dryRun" in request;
}

export interface RawAdminRequest {
  readonly method: string;
  /** The request target (path and query), e.g. /admin/v1/tenants/acme?dry_run=true. */
  readonly url: string;
  /** The body as text; "" when there is none. */
  readonly body: string;
}

const LIMITS = objectShape("limits", { concurrentCalls: null, callsPerSecond: null });
const TENANT_BODY = objectShape("a tenant", { limits: LIMITS, workspacePattern: null });
const WORKSPACE_BODY = objectShape("a workspace", { languages: null, create: null, idleTtlSeconds: null });
const KEY_BODY = objectShape("a new key", { id: null, scopes: null, workspaces: null });
/** The tenants file's format plus a "keys" list in the API keys file's format (lspmesh admin apply -f). */
const APPLY_FILE = objectShape("the apply file", {
  tenants: eachShape(
    objectShape("a tenant", {
      workspaces: eachShape(objectShape("a workspace", { id: null, languages: null }, true)),
      limits: LIMITS,
      workspacePattern: null,
    }),
  ),
  defaults: objectShape("defaults", { limits: LIMITS }),
  keys: eachShape(objectShape("a key", { id: null, tenant: null, sha256: null, scopes: null, workspaces: null })),
});

const ROUTES_HINT = `see the admin API's routes: ${ADMIN_PATH}/tenants[/{tenant}[/workspaces[/{workspace}]|/keys[/{id}]]], ${ADMIN_PATH}/apply`;

/** Reads `raw` into a request; throws AdminRefusal or AdminError (INVALID_ARGUMENT) naming the fix. */
export function parseAdminRequest(raw: RawAdminRequest): AdminRequest {
  const url = new URL(raw.url, "http://localhost");
  const segments = pathSegments(url.pathname);
  // Ids sit at the odd positions: tenants/{tenant}/workspaces/{workspace}.
  const route = segments.map((segment, index) => (index % 2 === 1 ? "*" : segment)).join("/");
  const methods = ROUTE_METHODS.get(route);
  if (!methods)
    throw new AdminRefusal(404, "unknown_route", `no admin route ${ADMIN_PATH}/${segments.join("/")}; ${ROUTES_HINT}`);
  if (!methods.includes(raw.method))
    throw new AdminRefusal(
      405,
      "method_not_allowed",
      `${ADMIN_PATH}/${route.replaceAll("*", "{id}")} takes ${methods.join(", ")}`,
      { allow: methods.join(", ") },
    );
  const write = raw.method !== "GET";
  const removesWorkspace = `${raw.method} ${route}` === "DELETE tenants/*/workspaces/*";
  checkQuery(url.searchParams, write, removesWorkspace ? ["remove_folder"] : []);
  const request = requestOf(`${raw.method} ${route}`, segments, raw.body, write && dryRunOf(url.searchParams));
  return removesWorkspace && booleanQuery(url.searchParams, "remove_folder")
    ? { ...(request as Extract<AdminRequest, { kind: "workspaces.remove" }>), removeFolder: true }
    : request;
}

/** The request a method and route stand for. */
function requestOf(route: string, segments: string[], body: string, dryRun: boolean): AdminRequest {
  // Ids are checked before the bucket is read (the change planning checks them again).
  const [, tenant = "", , second = ""] = segments;
  if (segments.length > 1) checkId("tenant", tenant);
  if (segments.length > 3) checkId(segments[2] === "keys" ? "key id" : "workspace", second);
  switch (route) {
    case "GET tenants":
      return { kind: "tenants.list" };
    case "GET tenants/*":
      return { kind: "tenants.show", tenant };
    case "PUT tenants/*":
      return { kind: "tenants.put", tenant, ...tenantBody(body), dryRun };
    case "DELETE tenants/*":
      return { kind: "tenants.remove", tenant, dryRun };
    case "GET tenants/*/workspaces":
      return { kind: "workspaces.list", tenant };
    case "GET tenants/*/workspaces/*":
      return { kind: "workspaces.show", tenant, workspace: second };
    case "PUT tenants/*/workspaces/*":
      return { kind: "workspaces.put", tenant, workspace: second, ...workspaceBody(body), dryRun };
    case "DELETE tenants/*/workspaces/*":
      return { kind: "workspaces.remove", tenant, workspace: second, dryRun };
    case "GET tenants/*/keys":
      return { kind: "keys.list", tenant };
    case "POST tenants/*/keys":
      return { kind: "keys.add", tenant, ...keyBody(body), dryRun };
    case "DELETE tenants/*/keys/*":
      return { kind: "keys.remove", tenant, id: second, dryRun };
    case "POST apply":
      return { kind: "apply", file: jsonBody(body, APPLY_FILE, true), dryRun };
    default:
      throw new Error(`admin route ${route} is listed without a request`);
  }
}

/** Methods of each route (ids as `*`); a Map, so a path such as /admin/v1/constructor finds nothing. */
const ROUTE_METHODS: ReadonlyMap<string, readonly string[]> = new Map([
  ["tenants", ["GET"]],
  ["tenants/*", ["GET", "PUT", "DELETE"]],
  ["tenants/*/workspaces", ["GET"]],
  ["tenants/*/workspaces/*", ["GET", "PUT", "DELETE"]],
  ["tenants/*/keys", ["GET", "POST"]],
  ["tenants/*/keys/*", ["DELETE"]],
  ["apply", ["POST"]],
]);

/** The decoded segments after /admin/v1; a segment that does not decode is refused. */
function pathSegments(pathname: string): string[] {
  const rest = pathname.slice(ADMIN_PATH.length).replace(/^\//, "");
  return rest.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new AdminError(
        "INVALID_ARGUMENT",
        `'${segment}' is not a valid path segment: ids are a-z, 0-9, '_' and '-'`,
      );
    }
  });
}

function checkQuery(query: URLSearchParams, write: boolean, extra: readonly string[]): void {
  const allowed = write ? ["dry_run", ...extra] : [];
  for (const name of new Set(query.keys())) {
    if (!allowed.includes(name))
      throw new AdminError(
        "INVALID_ARGUMENT",
        `unknown query parameter '${name}': ${write ? `a change takes only ${allowed.map((n) => `${n}=true`).join(", ")}` : "reads take no query parameters"}`,
      );
  }
}

function dryRunOf(query: URLSearchParams): boolean {
  return booleanQuery(query, "dry_run");
}

function booleanQuery(query: URLSearchParams, name: string): boolean {
  const values = query.getAll(name);
  if (values.length === 0) return false;
  if (values.length === 1 && (values[0] === "true" || values[0] === "false")) return values[0] === "true";
  throw new AdminError("INVALID_ARGUMENT", `${name} must be given once, as true or false`);
}

/** The parsed body, its fields checked against `shape`; an empty body is `{}` unless `required`. */
function jsonBody(text: string, shape: BodyShape, required = false): Record<string, unknown> {
  if (text.trim() === "") {
    if (required) throw new AdminError("INVALID_ARGUMENT", "send a JSON body (Content-Type: application/json)");
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AdminError("INVALID_ARGUMENT", `the body is not JSON (${(error as Error).message}); send a JSON object`);
  }
  const problem = shapeProblem(value, shape);
  if (problem) throw new AdminError("INVALID_ARGUMENT", problem);
  return value as Record<string, unknown>;
}

function tenantBody(text: string): { limits?: ControlTenant["limits"]; workspacePattern?: string } {
  const body = jsonBody(text, TENANT_BODY);
  if (body.workspacePattern !== undefined && typeof body.workspacePattern !== "string")
    throw new AdminError("INVALID_ARGUMENT", `workspacePattern must be a string such as "task-*"`);
  return {
    ...(body.limits === undefined ? {} : { limits: body.limits as ControlTenant["limits"] }),
    ...(body.workspacePattern === undefined ? {} : { workspacePattern: body.workspacePattern }),
  };
}

function workspaceBody(text: string): { languages?: string[]; create?: boolean; idleTtlSeconds?: number } {
  const body = jsonBody(text, WORKSPACE_BODY);
  if (body.create !== undefined && typeof body.create !== "boolean")
    throw new AdminError("INVALID_ARGUMENT", `"create" must be true or false`);
  const ttl = body.idleTtlSeconds;
  if (ttl !== undefined && !(typeof ttl === "number" && Number.isInteger(ttl) && ttl > 0))
    throw new AdminError("INVALID_ARGUMENT", `"idleTtlSeconds" must be a whole number of seconds above 0, e.g. 7200`);
  return {
    ...(typeof ttl === "number" ? { idleTtlSeconds: ttl } : {}),
    ...(body.languages === undefined ? {} : { languages: stringList(body.languages, "languages", "typescript") }),
    ...(body.create === true ? { create: true } : {}),
  };
}

function keyBody(text: string): { id: string; scopes: string[]; workspaces?: string[] } {
  const body = jsonBody(text, KEY_BODY, true);
  if (typeof body.id !== "string") throw new AdminError("INVALID_ARGUMENT", `give the key an "id", e.g. "ci"`);
  if (body.scopes === undefined)
    throw new AdminError("INVALID_ARGUMENT", `give the key's "scopes", e.g. ["lsp:read"] or ["lspmesh:admin"]`);
  return {
    id: body.id,
    scopes: stringList(body.scopes, "scopes", "lsp:read"),
    ...(body.workspaces === undefined ? {} : { workspaces: stringList(body.workspaces, "workspaces", "web") }),
  };
}

function stringList(value: unknown, field: string, example: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw new AdminError("INVALID_ARGUMENT", `${field} must be a list of strings, e.g. ["${example}"]`);
  return value;
}
