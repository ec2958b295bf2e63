import type { LogFields, Logger } from "@lspmesh/service-kit";
import { describe, expect, test } from "vitest";
import { sha256Hex } from "../auth/apiKeys.js";
import type { Principal } from "../auth/principal.js";
import { type AdminAnswer, refusalAnswer } from "./adminAnswer.js";
import { parseAdminRequest } from "./adminRequest.js";
import { AdminService, type ControlPlaneWriter } from "./adminService.js";
import { WorkspaceExpiryTimer } from "./workspaceExpiryTimer.js";

/** The bucket in memory, as ControlPlaneStore reads and writes it. */
class MemoryStore implements ControlPlaneWriter {
  readonly values_ = new Map<string, string>();
  failPutsAfter = Number.POSITIVE_INFINITY;
  async values(): Promise<Map<string, string>> {
    return new Map(this.values_);
  }
  async put(key: string, value: string): Promise<void> {
    if (this.failPutsAfter-- <= 0) throw new Error("Permissions Violation for Publish");
    this.values_.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values_.delete(key);
  }
}

function setup(options: { writable?: boolean } = {}) {
  const store = new MemoryStore();
  const audit: LogFields[] = [];
  const auditLogger: Logger = {
    debug() {},
    info: (_msg, fields) => audit.push(fields ?? {}),
    warn() {},
    error() {},
  };
  let closed = 0;
  const writer = {
    open: async () => store,
    close: async () => {
      closed++;
    },
  };
  const service = new AdminService({
    reader: store,
    ...(options.writable === false ? {} : { writer }),
    auditLogger,
  });
  const caller: Principal = { tenant: "ops", subject: "key:ops/root", scopes: ["lspmesh:admin"] };
  /** The answer, or the refusal's answer, to a request as the HTTP route would send it. */
  const send = async (method: string, url: string, body?: unknown): Promise<AdminAnswer> => {
    try {
      const request = parseAdminRequest({ method, url, body: body === undefined ? "" : JSON.stringify(body) });
      return await service.handle(request, caller);
    } catch (error) {
      const answer = refusalAnswer(error);
      if (!answer) throw error;
      return answer;
    }
  };
  return { store, audit, service, send, closed: () => closed };
}

describe("the admin service", () => {
  test("a tenant, a workspace and a key are written with one audit line each; the token comes back once", async () => {
    const { store, audit, send } = setup();
    expect(await send("PUT", "/admin/v1/tenants/acme", { limits: { callsPerSecond: 5 } })).toEqual({
      status: 200,
      body: { changes: ['+ tenants.acme {"limits":{"callsPerSecond":5},"v":1}'] },
    });
    expect((await send("PUT", "/admin/v1/tenants/acme/workspaces/web")).body).toEqual({
      changes: ['+ workspaces.acme.web {"v":1}'],
    });
    const added = await send("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:read"] });
    expect(added).toMatchObject({ status: 201, body: { tenant: "acme", id: "ci", scopes: ["lsp:read"] } });
    const token = String(added.body.token);
    expect(token).toMatch(/^lsm_/);
    expect(store.values_.get("keys.acme.ci")).toContain(sha256Hex(token));
    expect(JSON.stringify(added.body)).not.toContain(sha256Hex(token));
    expect(added.body.changes).toEqual(['+ keys.acme.ci {"scopes":["lsp:read"],"sha256":"(not shown)","v":1}']);
    expect(audit).toEqual([
      { tool: "admin", key: "tenants.acme", change: "put", by: "key:ops/root" },
      { tool: "admin", key: "workspaces.acme.web", change: "put", by: "key:ops/root" },
      { tool: "admin", key: "keys.acme.ci", change: "put", by: "key:ops/root" },
    ]);
    // The same request again changes nothing.
    expect((await send("PUT", "/admin/v1/tenants/acme", { limits: { callsPerSecond: 5 } })).body).toEqual({
      changes: [],
    });
    expect(audit).toHaveLength(3);
  });

  test("reads answer the stored records, never a key's hash", async () => {
    const { store, send } = setup();
    await send("PUT", "/admin/v1/tenants/acme");
    await send("PUT", "/admin/v1/tenants/acme/workspaces/web", { languages: ["typescript"] });
    await send("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:read"], workspaces: ["web"] });
    store.values_.set("workspaces.acme.bad", "{");
    expect((await send("GET", "/admin/v1/tenants")).body).toEqual({ tenants: { acme: { v: 1 } } });
    const shown = await send("GET", "/admin/v1/tenants/acme");
    expect(shown.body).toEqual({
      tenant: "acme",
      v: 1,
      workspaces: {
        bad: { unreadable: "not a JSON object; the gateways ignore this key" },
        web: { v: 1, languages: ["typescript"] },
      },
      keys: { ci: { v: 1, scopes: ["lsp:read"], workspaces: ["web"] } },
    });
    expect((await send("GET", "/admin/v1/tenants/acme/keys")).body).toEqual({
      tenant: "acme",
      keys: { ci: { v: 1, scopes: ["lsp:read"], workspaces: ["web"] } },
    });
    expect((await send("GET", "/admin/v1/tenants/acme/workspaces/web")).body).toEqual({
      tenant: "acme",
      workspace: "web",
      v: 1,
      languages: ["typescript"],
    });
    expect(await send("GET", "/admin/v1/tenants/globex")).toMatchObject({
      status: 404,
      body: { error: "not_found", error_description: "no tenant 'globex'; GET /admin/v1/tenants lists them" },
    });
    expect((await send("GET", "/admin/v1/tenants/acme/workspaces/api")).status).toBe(404);
  });

  test("the change planning's refusals map to 400, 404 and 409 and write nothing", async () => {
    const { store, send } = setup();
    await send("PUT", "/admin/v1/tenants/acme");
    const before = new Map(store.values_);
    expect(await send("PUT", "/admin/v1/tenants/acme", { limits: { callsPerSecond: -1 } })).toMatchObject({
      status: 400,
      body: {
        error: "invalid_argument",
        error_description: expect.stringMatching(/callsPerSecond must be a positive/),
      },
    });
    expect(await send("PUT", "/admin/v1/tenants/globex/workspaces/web")).toMatchObject({ status: 404 });
    expect(await send("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:root"] })).toMatchObject({
      status: 400,
      body: { error_description: expect.stringMatching(/scopes must be lsp:read and\/or lsp:write/) },
    });
    await send("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:read"] });
    expect(await send("POST", "/admin/v1/tenants/acme/keys", { id: "ci", scopes: ["lsp:read"] })).toMatchObject({
      status: 409,
      body: { error: "already_exists" },
    });
    expect(await send("POST", "/admin/v1/apply", { tenants: { acme: {} } })).toMatchObject({
      status: 400,
      body: { error_description: expect.stringMatching(/tenant 'acme' needs a "workspaces" list/) },
    });
    store.values_.delete("keys.acme.ci");
    expect(store.values_).toEqual(before);
  });

  test("a dry run shows the diff and writes nothing; apply makes the bucket equal to the file", async () => {
    const { store, audit, send } = setup();
    const file = { tenants: { acme: { workspaces: ["web"] }, ops: { workspaces: [] } } };
    expect(await send("POST", "/admin/v1/apply?dry_run=true", file)).toEqual({
      status: 200,
      body: {
        changes: ['+ tenants.acme {"v":1}', '+ tenants.ops {"v":1}', '+ workspaces.acme.web {"v":1}'],
        dry_run: true,
      },
    });
    expect(store.values_.size).toBe(0);
    expect((await send("POST", "/admin/v1/apply", file)).body.changes).toHaveLength(3);
    expect(audit).toHaveLength(3);
    expect((await send("POST", "/admin/v1/apply", file)).body).toEqual({ changes: [] });
  });

  test("changes that would lock the caller out are refused with 409", async () => {
    const { store, send } = setup();
    store.values_.set("tenants.ops", '{"v":1}');
    store.values_.set("keys.ops.root", `{"scopes":["lspmesh:admin"],"sha256":"${"a".repeat(64)}","v":1}`);
    expect(await send("DELETE", "/admin/v1/tenants/ops")).toMatchObject({
      status: 409,
      body: {
        error: "locks_out_caller",
        error_description: expect.stringMatching(/deletes the key you are calling with \(keys\.ops\.root\)/),
      },
    });
    expect((await send("DELETE", "/admin/v1/tenants/ops/keys/root")).status).toBe(409);
    const demoted = { id: "root", tenant: "ops", sha256: "a".repeat(64), scopes: ["lsp:read"] };
    expect(
      await send("POST", "/admin/v1/apply", { tenants: { ops: { workspaces: [] } }, keys: [demoted] }),
    ).toMatchObject({
      status: 409,
      body: { error_description: expect.stringMatching(/takes lspmesh:admin from the key you are calling with/) },
    });
    expect(store.values_.has("keys.ops.root")).toBe(true);
  });

  test("without the admin identity, changes answer 503 naming LSPMESH_ADMIN_NATS_CREDS; reads and dry runs work", async () => {
    const { store, send } = setup({ writable: false });
    store.values_.set("tenants.acme", '{"v":1}');
    expect(await send("PUT", "/admin/v1/tenants/globex")).toMatchObject({
      status: 503,
      body: { error: "writes_unavailable", error_description: expect.stringMatching(/set LSPMESH_ADMIN_NATS_CREDS/) },
    });
    expect((await send("PUT", "/admin/v1/tenants/globex?dry_run=true")).body).toEqual({
      changes: ['+ tenants.globex {"v":1}'],
      dry_run: true,
    });
    expect((await send("GET", "/admin/v1/tenants")).status).toBe(200);
    expect(store.values_.has("tenants.globex")).toBe(false);
  });

  test("a failed write says how far it got; close() closes the write path", async () => {
    const { store, audit, service, send, closed } = setup();
    store.failPutsAfter = 1;
    const answer = await send("POST", "/admin/v1/apply", { tenants: { acme: { workspaces: ["web"] } } });
    expect(answer).toMatchObject({
      status: 503,
      body: {
        error: "write_failed",
        error_description: expect.stringMatching(
          /writing workspaces\.acme\.web failed after 1 of 2 change\(s\): Permissions Violation.*lspmesh admin creds admin.*send the request again/,
        ),
      },
    });
    expect(audit).toHaveLength(1);
    await service.close();
    expect(closed()).toBe(1);
  });
});

describe("idle TTLs through the admin identity", () => {
  test("the timer's check tombstones what is idle past its TTL, audited as idle-ttl; without the admin identity nothing", async () => {
    const { store, audit, service, send } = setup();
    expect((await send("PUT", "/admin/v1/tenants/acme", {})).status).toBe(200);
    expect((await send("PUT", "/admin/v1/tenants/acme/workspaces/web", {})).status).toBe(200);
    store.values_.set(
      "workspaces.acme.pr-1",
      JSON.stringify({ v: 1, create: true, idleTtlSeconds: 60, at: new Date(Date.now() - 120_000).toISOString() }),
    );
    const logged: Array<[string, LogFields | undefined]> = [];
    const logger: Logger = {
      debug() {},
      info: (m, f) => logged.push([m, f]),
      warn: (m, f) => logged.push([m, f]),
      error() {},
    };
    const timer = new WorkspaceExpiryTimer(service, async () => new Map(), logger, 60_000);
    await timer.check();
    await timer.close();
    await timer.close();
    expect(store.values_.get("workspaces.acme.pr-1")).toBe('{"removeFolder":true,"state":"deleted","v":1}');
    expect(store.values_.get("workspaces.acme.web")).toBe('{"v":1}');
    expect(audit.at(-1)).toMatchObject({ key: "workspaces.acme.pr-1", by: "idle-ttl" });
    expect(logged).toEqual([
      ["idle workspace deleted", expect.objectContaining({ tenant: "acme", workspace: "pr-1", removeFolder: true })],
    ]);
    // A recent use keeps it alive.
    store.values_.set(
      "workspaces.acme.pr-2",
      JSON.stringify({ v: 1, idleTtlSeconds: 60, at: new Date(0).toISOString() }),
    );
    expect(await service.expireIdleWorkspaces(new Map([["acme.pr-2", Date.now() - 1_000]]))).toEqual([]);
    expect(await setup({ writable: false }).service.expireIdleWorkspaces(new Map())).toEqual([]);
  });
});
