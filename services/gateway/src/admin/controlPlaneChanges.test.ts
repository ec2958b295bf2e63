import { applyControlChange, emptyControlSnapshot } from "@lspmesh/events";
import { describe, expect, test } from "vitest";
import { sha256Hex } from "../auth/apiKeys.js";
import { apiKeyRecordsOf, tenantsFileOf } from "../tenancy/controlPlaneTenancy.js";
import {
  AdminError,
  appliedChanges,
  applyFile,
  describeChange,
  keyAdd,
  keyRemove,
  tenantPut,
  tenantRemove,
  workspacePut,
  workspaceRemove,
} from "./controlPlaneChanges.js";

/** The bucket after the changes (what the store would hold). */
const applied = appliedChanges;

const HASH = "a".repeat(64);

describe("admin changes", () => {
  test("a tenant, a workspace and a key are added; the key's token is returned once and only its hash stored", () => {
    let bucket = applied(new Map(), tenantPut(new Map(), "acme", { callsPerSecond: 5 }));
    bucket = applied(bucket, workspacePut(bucket, "acme", "web", ["typescript"]));
    const { token, changes } = keyAdd(bucket, "acme", "ci", ["lsp:read"]);
    bucket = applied(bucket, changes);
    expect([...bucket.keys()].sort()).toEqual(["keys.acme.ci", "tenants.acme", "workspaces.acme.web"]);
    expect(bucket.get("keys.acme.ci")).toBe(`{"scopes":["lsp:read"],"sha256":"${sha256Hex(token)}","v":1}`);
    expect(bucket.get("keys.acme.ci")).not.toContain(token);
    expect(describeChange(changes[0]!)).toMatch(/^\+ keys\.acme\.ci /);
    // The same request again changes nothing.
    expect(tenantPut(bucket, "acme", { callsPerSecond: 5 })).toEqual([]);
    expect(workspacePut(bucket, "acme", "web", ["typescript"])).toEqual([]);
  });

  test("removing a workspace leaves a tombstone; removing a tenant deletes its keys and tombstones its workspaces", () => {
    let bucket = applied(new Map(), tenantPut(new Map(), "acme"));
    bucket = applied(bucket, workspacePut(bucket, "acme", "web"));
    bucket = applied(bucket, workspacePut(bucket, "acme", "api"));
    bucket = applied(bucket, keyAdd(bucket, "acme", "ci", ["lsp:read"]).changes);
    bucket = applied(bucket, workspaceRemove(bucket, "acme", "web"));
    expect(bucket.get("workspaces.acme.web")).toBe('{"state":"deleted","v":1}');
    expect(() => workspaceRemove(bucket, "acme", "web")).toThrow(/no workspace 'web'/);
    bucket = applied(bucket, tenantRemove(bucket, "acme"));
    expect(Object.fromEntries(bucket)).toEqual({
      "workspaces.acme.web": '{"state":"deleted","v":1}',
      "workspaces.acme.api": '{"state":"deleted","v":1}',
    });
  });

  test("a workspace added with create asks the runners for its folder; removed with removeFolder, to delete it", () => {
    let bucket = applied(new Map(), tenantPut(new Map(), "acme"));
    bucket = applied(bucket, workspacePut(bucket, "acme", "task-1", undefined, { create: true }));
    expect(bucket.get("workspaces.acme.task-1")).toBe('{"create":true,"v":1}');
    bucket = applied(bucket, workspaceRemove(bucket, "acme", "task-1", { removeFolder: true }));
    expect(bucket.get("workspaces.acme.task-1")).toBe('{"removeFolder":true,"state":"deleted","v":1}');
    expect(() => workspaceRemove(bucket, "acme", "task-1", { removeFolder: true })).toThrow(/no workspace 'task-1'/);
  });

  test("bad requests are refused naming the fix, before anything is written", () => {
    const bucket = applied(new Map(), tenantPut(new Map(), "acme"));
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(AdminError);
        return `${(error as AdminError).code}: ${(error as Error).message}`;
      }
      return "accepted";
    };
    expect(refusal(() => tenantPut(bucket, "Acme!"))).toMatch(/^INVALID_ARGUMENT: tenant 'Acme!' is not an id/);
    expect(refusal(() => tenantPut(bucket, "acme", { callsPerSecond: -1 }))).toMatch(
      /callsPerSecond must be a positive/,
    );
    expect(refusal(() => workspacePut(bucket, "globex", "web"))).toMatch(
      /^NOT_FOUND: .*lspmesh admin tenants add globex/,
    );
    expect(refusal(() => keyAdd(bucket, "acme", "ci", ["lsp:admin"]))).toMatch(
      /scopes must be lsp:read and\/or lsp:write/,
    );
    expect(keyAdd(bucket, "acme", "ops", ["lspmesh:admin"]).changes[0]!.value).toMatch(/"scopes":\["lspmesh:admin"\]/);
    expect(refusal(() => keyRemove(bucket, "acme", "nope"))).toMatch(/^NOT_FOUND: tenant 'acme' has no key 'nope'/);
    const withKey = applied(bucket, keyAdd(bucket, "acme", "ci", ["lsp:read"]).changes);
    expect(refusal(() => keyAdd(withKey, "acme", "ci", ["lsp:read"]))).toMatch(/^ALREADY_EXISTS/);
  });

  test("apply makes the bucket equal to the file, twice is a no-op, and what left the file is deleted or tombstoned", () => {
    const file = {
      tenants: { acme: { workspaces: ["web", { id: "api", languages: ["python"] }], limits: { concurrentCalls: 4 } } },
      defaults: { limits: { callsPerSecond: 10 } },
      keys: [{ id: "ci", tenant: "acme", sha256: HASH, scopes: ["lsp:read", "lsp:write"], workspaces: ["web"] }],
    };
    const first = applyFile(new Map(), file, "seed.json");
    expect(first.map(describeChange)).toEqual([
      '+ defaults {"limits":{"callsPerSecond":10},"v":1}',
      `+ keys.acme.ci {"scopes":["lsp:read","lsp:write"],"sha256":"${HASH}","v":1,"workspaces":["web"]}`,
      '+ tenants.acme {"limits":{"concurrentCalls":4},"v":1}',
      '+ workspaces.acme.api {"languages":["python"],"v":1}',
      '+ workspaces.acme.web {"v":1}',
    ]);
    let bucket = applied(new Map(), first);
    expect(applyFile(bucket, file, "seed.json")).toEqual([]);
    bucket = applied(bucket, applyFile(bucket, { tenants: { acme: { workspaces: ["web"] } } }, "seed.json"));
    expect(bucket.has("keys.acme.ci")).toBe(false);
    expect(bucket.has("defaults")).toBe(false);
    expect(bucket.get("workspaces.acme.api")).toBe('{"state":"deleted","v":1}');
  });

  test("apply refuses a file the gateway would refuse", () => {
    expect(() => applyFile(new Map(), { tenants: { acme: {} } }, "f.json")).toThrow(
      /tenant 'acme' needs a "workspaces" list/,
    );
    expect(() =>
      applyFile(
        new Map(),
        {
          tenants: { acme: { workspaces: [] } },
          keys: [{ id: "Bad Id", tenant: "acme", sha256: HASH, scopes: ["lsp:read"] }],
        },
        "f.json",
      ),
    ).toThrow(/id 'Bad Id' must be a-z/);
    expect(() =>
      applyFile(
        new Map(),
        { tenants: {}, keys: [{ id: "ci", tenant: "acme", sha256: HASH, scopes: ["lsp:read"] }] },
        "f.json",
      ),
    ).toThrow(/names tenant 'acme', which the file does not list/);
  });
});

describe("the gateway's view of the bucket", () => {
  test("live workspaces, tombstones, keys of existing tenants only; a bad record costs only itself", () => {
    const snapshot = emptyControlSnapshot();
    const put = (key: string, value: unknown) =>
      applyControlChange(snapshot, { key, operation: "PUT", value: new TextEncoder().encode(JSON.stringify(value)) });
    put("tenants.acme", { v: 1, limits: { callsPerSecond: 3 } });
    put("workspaces.acme.web", { v: 1 });
    put("workspaces.acme.old", { v: 1, state: "deleted" });
    put("keys.acme.ci", { v: 1, sha256: HASH, scopes: ["lsp:read"] });
    put("keys.acme.bad", { v: 1, sha256: "nothex", scopes: ["lsp:read"] });
    put("keys.gone.ci", { v: 1, sha256: "b".repeat(64), scopes: ["lsp:read"] });
    expect(
      applyControlChange(snapshot, { key: "tenants.x", operation: "PUT", value: new TextEncoder().encode("{") }),
    ).toMatch(/holds no JSON object/);
    const problems: string[] = [];
    const file = tenantsFileOf(snapshot, (message, key) => problems.push(`${key}: ${message}`));
    expect(file.tenants).toEqual({
      acme: { workspaces: [{ id: "web" }], limits: { callsPerSecond: 3 }, deleted: ["old"] },
    });
    const keys = apiKeyRecordsOf(snapshot, (message, key) => problems.push(`${key}: ${message}`));
    expect(keys.map((key) => key.id)).toEqual(["acme/ci"]);
    expect(problems).toEqual([expect.stringMatching(/^keys\.acme\.bad: .*sha256 must be 64 hex digits/)]);
    applyControlChange(snapshot, { key: "workspaces.acme.web", operation: "DEL", value: new Uint8Array() });
    expect(tenantsFileOf(snapshot, () => {}).tenants.acme?.workspaces).toEqual([]);
  });
});
