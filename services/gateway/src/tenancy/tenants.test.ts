import { describe, expect, test } from "vitest";
import type { Principal } from "../auth/principal.js";
import { GatewayError } from "../errors.js";
import { parseTenantsFile, TenantWorkspaceResolver } from "./tenants.js";

const file = parseTenantsFile({
  tenants: {
    acme: { workspaces: ["web", { id: "api", languages: ["typescript", "python"] }], limits: { callsPerSecond: 5 } },
    globex: { workspaces: ["shop"] },
  },
  defaults: { limits: { concurrentCalls: 4 } },
});
const resolver = new TenantWorkspaceResolver(file);
const caller = (principal: Partial<Principal>) => ({
  principal: { tenant: "acme", subject: "t", scopes: ["lsp:read"], ...principal } as Principal,
});

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.catch((e: unknown) => e);
  if (!(error instanceof GatewayError)) throw new Error("expected a GatewayError");
  return error;
}

describe("tenant workspaces", () => {
  test("a caller sees its tenant's workspaces, narrowed by its token", async () => {
    expect((await resolver.visible(caller({}))).map((t) => t.workspace)).toEqual(["api", "web"]);
    expect((await resolver.visible(caller({ workspaces: ["web", "shop"] }))).map((t) => t.workspace)).toEqual(["web"]);
  });

  test("another tenant's workspace fails exactly like a missing one", async () => {
    const foreign = await failure(resolver.resolve("shop", caller({})));
    const missing = await failure(resolver.resolve("nope", caller({})));
    expect(foreign.code).toBe("NOT_FOUND");
    expect(foreign.message.replace("shop", "X")).toBe(missing.message.replace("nope", "X"));
    expect(foreign.message).not.toContain("globex");
  });

  test("workspace may be omitted when the caller has exactly one; otherwise the error lists its own", async () => {
    await expect(resolver.resolve(undefined, caller({ workspaces: ["web"] }))).resolves.toEqual({
      tenant: "acme",
      workspace: "web",
    });
    const error = await failure(resolver.resolve(undefined, caller({})));
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: "give workspace: one of api, web" });
  });

  test("a token without lsp:read or of an unknown tenant sees nothing", async () => {
    expect(await resolver.visible(caller({ scopes: [] }))).toEqual([]);
    expect(await resolver.visible(caller({ tenant: "initech" }))).toEqual([]);
    expect((await failure(resolver.resolve("web", caller({ tenant: "initech" })))).code).toBe("NOT_FOUND");
  });

  test("languages and limits come from the file, tenant limits over defaults", () => {
    expect(resolver.languagesOf({ tenant: "acme", workspace: "api" })).toEqual(["typescript", "python"]);
    expect(resolver.languagesOf({ tenant: "acme", workspace: "web" })).toBeUndefined();
    expect(resolver.limitsOf("acme")).toEqual({ concurrentCalls: 4, callsPerSecond: 5 });
    expect(resolver.limitsOf("globex")).toEqual({ concurrentCalls: 4 });
  });
});

test("bad tenants files name the fix", () => {
  expect(() => parseTenantsFile({})).toThrow(/needs a "tenants" object/);
  expect(() => parseTenantsFile({ tenants: { Acme: { workspaces: [] } } })).toThrow(/not a tenant id/);
  expect(() => parseTenantsFile({ tenants: { acme: {} } })).toThrow(/needs a "workspaces" list/);
  expect(() => parseTenantsFile({ tenants: { acme: { workspaces: ["../x"] } } })).toThrow(/not a workspace id/);
  expect(() => parseTenantsFile({ tenants: { acme: { workspaces: [], limits: { callsPerSecond: 0 } } } })).toThrow(
    /positive number/,
  );
});

describe("workspace patterns", () => {
  const patterned = new TenantWorkspaceResolver(
    parseTenantsFile({
      tenants: { acme: { workspaces: ["web"], workspacePattern: "task-*" }, globex: { workspaces: ["shop"] } },
    }),
  );

  test("an unlisted workspace matching the tenant's pattern is its own; others, and other tenants', are not", async () => {
    await expect(patterned.resolve("task-42", caller({}))).resolves.toEqual({ tenant: "acme", workspace: "task-42" });
    expect((await failure(patterned.resolve("tasks", caller({})))).code).toBe("NOT_FOUND");
    expect((await failure(patterned.resolve("task-42", caller({ tenant: "globex" })))).code).toBe("NOT_FOUND");
    // The token's own workspace list still narrows it; listing stays explicit.
    expect((await failure(patterned.resolve("task-42", caller({ workspaces: ["web"] })))).code).toBe("NOT_FOUND");
    expect((await patterned.visible(caller({}))).map((t) => t.workspace)).toEqual(["web"]);
  });

  test("a deleted workspace stays deleted even when the pattern matches it", async () => {
    const file = parseTenantsFile({ tenants: { acme: { workspaces: [], workspacePattern: "task-*" } } });
    file.tenants.acme!.deleted = ["task-1"];
    const error = await failure(new TenantWorkspaceResolver(file).resolve("task-1", caller({})));
    expect(error.message).toMatch(/^workspace 'task-1' was deleted/);
  });

  test("a pattern must be a workspace id with a '*'", () => {
    for (const bad of ["task", "Task-*", "task/*", 7, "*".repeat(70)])
      expect(() => parseTenantsFile({ tenants: { acme: { workspaces: [], workspacePattern: bad } } })).toThrow(
        /workspacePattern must be a workspace id with '\*' wildcards/,
      );
  });
});
