import { describe, expect, test } from "vitest";
import { refusalAnswer } from "./adminAnswer.js";
import { parseAdminRequest } from "./adminRequest.js";

const parse = (method: string, url: string, body: unknown = "") =>
  parseAdminRequest({ method, url, body: typeof body === "string" ? body : JSON.stringify(body) });

/** The status and message a refused request is answered with; "accepted" when it is not refused. */
function refusal(method: string, url: string, body: unknown = ""): string {
  try {
    parse(method, url, body);
    return "accepted";
  } catch (error) {
    const answer = refusalAnswer(error);
    if (!answer) throw error;
    return `${answer.status} ${answer.body.error}: ${answer.body.error_description}`;
  }
}

describe("admin requests", () => {
  test("each route and method reads into its request; changes take dry_run", () => {
    expect(parse("GET", "/admin/v1/tenants")).toEqual({ kind: "tenants.list" });
    expect(parse("GET", "/admin/v1/tenants/acme")).toEqual({ kind: "tenants.show", tenant: "acme" });
    expect(
      parse("PUT", "/admin/v1/tenants/acme", { limits: { callsPerSecond: 5 }, workspacePattern: "task-*" }),
    ).toEqual({
      kind: "tenants.put",
      tenant: "acme",
      limits: { callsPerSecond: 5 },
      workspacePattern: "task-*",
      dryRun: false,
    });
    expect(parse("PUT", "/admin/v1/tenants/acme?dry_run=true")).toEqual({
      kind: "tenants.put",
      tenant: "acme",
      dryRun: true,
    });
    expect(parse("DELETE", "/admin/v1/tenants/acme")).toEqual({
      kind: "tenants.remove",
      tenant: "acme",
      dryRun: false,
    });
    expect(parse("GET", "/admin/v1/tenants/acme/workspaces")).toEqual({ kind: "workspaces.list", tenant: "acme" });
    expect(parse("PUT", "/admin/v1/tenants/acme/workspaces/web", { languages: ["typescript"] })).toEqual({
      kind: "workspaces.put",
      tenant: "acme",
      workspace: "web",
      languages: ["typescript"],
      dryRun: false,
    });
    expect(parse("DELETE", "/admin/v1/tenants/acme/workspaces/web?dry_run=false")).toMatchObject({
      kind: "workspaces.remove",
      dryRun: false,
    });
    expect(
      parse("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:read"], workspaces: ["web"] }),
    ).toEqual({
      kind: "keys.add",
      tenant: "acme",
      id: "ci",
      scopes: ["lsp:read"],
      workspaces: ["web"],
      dryRun: false,
    });
    expect(parse("DELETE", "/admin/v1/tenants/acme/keys/ci")).toMatchObject({ kind: "keys.remove", id: "ci" });
    expect(parse("POST", "/admin/v1/apply?dry_run=true", { tenants: { acme: { workspaces: ["web"] } } })).toEqual({
      kind: "apply",
      file: { tenants: { acme: { workspaces: ["web"] } } },
      dryRun: true,
    });
  });

  test("a workspace's folder: create in the PUT body, remove_folder=true on DELETE", () => {
    expect(parse("PUT", "/admin/v1/tenants/acme/workspaces/task-1", { create: true })).toEqual({
      kind: "workspaces.put",
      tenant: "acme",
      workspace: "task-1",
      create: true,
      dryRun: false,
    });
    expect(parse("DELETE", "/admin/v1/tenants/acme/workspaces/task-1?remove_folder=true")).toEqual({
      kind: "workspaces.remove",
      tenant: "acme",
      workspace: "task-1",
      removeFolder: true,
      dryRun: false,
    });
    expect(parse("PUT", "/admin/v1/tenants/acme/workspaces/task-1", { idleTtlSeconds: 7200 })).toMatchObject({
      idleTtlSeconds: 7200,
    });
    expect(refusal("PUT", "/admin/v1/tenants/acme/workspaces/task-1", { idleTtlSeconds: "2h" })).toMatch(
      /400 .*"idleTtlSeconds" must be a whole number/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme/workspaces/task-1", { create: "yes" })).toMatch(
      /400 .*"create" must be true or false/,
    );
    expect(refusal("DELETE", "/admin/v1/tenants/acme?remove_folder=true")).toMatch(
      /400 .*unknown query parameter 'remove_folder'/,
    );
  });

  test("unknown routes are 404 naming the routes, other methods 405 naming those allowed", () => {
    expect(refusal("GET", "/admin/v1/tenant")).toMatch(/^404 unknown_route: no admin route \/admin\/v1\/tenant; see/);
    expect(refusal("GET", "/admin/v1")).toMatch(/^404 unknown_route/);
    expect(refusal("GET", "/admin/v1/constructor")).toMatch(/^404 unknown_route/);
    expect(refusal("GET", "/admin/v1/tenants/acme/")).toMatch(/^404 unknown_route/);
    expect(refusal("POST", "/admin/v1/tenants/acme")).toBe(
      "405 method_not_allowed: /admin/v1/tenants/{id} takes GET, PUT, DELETE",
    );
    try {
      parse("GET", "/admin/v1/apply");
    } catch (error) {
      expect(refusalAnswer(error)?.headers).toEqual({ allow: "POST" });
    }
  });

  test("bad ids, query parameters, JSON and fields are 400 naming the fix", () => {
    expect(refusal("GET", "/admin/v1/tenants/Acme!")).toMatch(
      /^400 invalid_argument: tenant 'Acme!' is not an id: use a-z/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme/workspaces/Web")).toMatch(/^400 .*workspace 'Web' is not an id/);
    expect(refusal("DELETE", "/admin/v1/tenants/acme/keys/a%2Fb")).toMatch(/^400 .*key id 'a\/b' is not an id/);
    expect(refusal("GET", "/admin/v1/tenants/%E0%A4%A")).toMatch(/^400 .*not a valid path segment/);
    expect(refusal("GET", "/admin/v1/tenants?dry_run=true")).toMatch(
      /^400 .*unknown query parameter 'dry_run': reads take no/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme?force=1")).toMatch(
      /unknown query parameter 'force': a change takes only dry_run/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme?dry_run=yes")).toMatch(
      /dry_run must be given once, as true or false/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme", "{limits:")).toMatch(
      /^400 invalid_argument: the body is not JSON \(/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme", [])).toMatch(/the body must be a JSON object \(a tenant\)/);
    expect(refusal("PUT", "/admin/v1/tenants/acme", { limit: { callsPerSecond: 5 } })).toBe(
      "400 invalid_argument: unknown field 'limit': a tenant takes limits, workspacePattern",
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme", { limits: { callsPerSec: 5 } })).toMatch(
      /unknown field 'limits.callsPerSec': limits takes concurrentCalls, callsPerSecond/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme", { limits: 5 })).toMatch(/'limits' must be a JSON object/);
    expect(refusal("PUT", "/admin/v1/tenants/acme", { workspacePattern: 7 })).toMatch(
      /workspacePattern must be a string/,
    );
    expect(refusal("PUT", "/admin/v1/tenants/acme/workspaces/web", { languages: "ts" })).toMatch(
      /languages must be a list of strings/,
    );
    expect(refusal("POST", "/admin/v1/tenants/acme/keys")).toMatch(/send a JSON body/);
    expect(refusal("POST", "/admin/v1/tenants/acme/keys", { scopes: ["lsp:read"] })).toMatch(/give the key an "id"/);
    expect(refusal("POST", "/admin/v1/tenants/acme/keys", { id: "ci" })).toMatch(/give the key's "scopes"/);
    expect(refusal("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:read"], workspaces: [1] })).toMatch(
      /workspaces must be a list of strings/,
    );
    expect(refusal("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: [], sha256: "a".repeat(64) })).toMatch(
      /unknown field 'sha256': a new key takes id, scopes, workspaces/,
    );
  });

  test("the apply file's fields are checked at every level; workspaces may be plain ids", () => {
    const file = (extra: object) => ({ tenants: { acme: { workspaces: ["web", { id: "api" }], ...extra } } });
    expect(refusal("POST", "/admin/v1/apply", file({}))).toBe("accepted");
    expect(refusal("POST", "/admin/v1/apply", file({ workspace: [] }))).toMatch(
      /unknown field 'tenants.acme.workspace': a tenant takes workspaces, limits, workspacePattern/,
    );
    expect(
      refusal("POST", "/admin/v1/apply", { tenants: { acme: { workspaces: [{ id: "api", langs: [] }] } } }),
    ).toMatch(/unknown field 'tenants.acme.workspaces.0.langs'/);
    expect(refusal("POST", "/admin/v1/apply", { ...file({}), keys: [{ id: "ci", token: "x" }] })).toMatch(
      /unknown field 'keys.0.token': a key takes id, tenant, sha256, scopes, workspaces/,
    );
    expect(refusal("POST", "/admin/v1/apply", { ...file({}), extra: 1 })).toMatch(/unknown field 'extra'/);
    expect(refusal("POST", "/admin/v1/apply", '{"tenants":{"acme":{"workspaces":[],"__proto__":{}}}}')).toMatch(
      /unknown field 'tenants.acme.__proto__'/,
    );
  });
});
