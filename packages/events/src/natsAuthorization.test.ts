import { describe, expect, test } from "vitest";
import { natsUserPermissions, runnerPermissions } from "./natsAuthorization.js";

const subjectsOf = (permissions: { publish: string[] }) => permissions.publish;

describe("a runner's view of the registry (handoff)", () => {
  test("issued for some tenants, it follows only its own identity's registry and claims keys", () => {
    const pool = subjectsOf(
      runnerPermissions({ user: "runner-typescript", runnerIds: "typescript.*", tenants: ["acme"], allTenants: "any" }),
    );
    expect(pool).toContain("$JS.API.CONSUMER.CREATE.KV_lspmesh-runners.*.$KV.lspmesh-runners.typescript.*");
    expect(pool).toContain(
      "$JS.API.CONSUMER.CREATE.KV_lspmesh-runner-claims.*.$KV.lspmesh-runner-claims.*.typescript.*",
    );
    // No unfiltered watch, no single-key read of another runner's entry.
    expect(pool).not.toContain("$JS.API.CONSUMER.CREATE.KV_lspmesh-runners.>");
    expect(pool.some((subject) => subject.startsWith("$JS.API.DIRECT.GET.KV_lspmesh-runners"))).toBe(false);
    expect(pool.some((subject) => subject.startsWith("$JS.API.STREAM.MSG.GET.KV_lspmesh-runners"))).toBe(false);
  });

  test("serving every tenant, it follows every runner's entry and claims", () => {
    const [runner] = natsUserPermissions({ runners: [{ id: "r1" }], tenants: ["acme"] }).filter((u) => u.user === "r1");
    expect(runner?.publish).toContain("$JS.API.CONSUMER.CREATE.KV_lspmesh-runners.>");
    expect(runner?.publish).toContain("$JS.API.CONSUMER.CREATE.KV_lspmesh-runner-claims.>");
    // Still writes only its own key.
    expect(runner?.publish.filter((subject) => subject.startsWith("$KV.lspmesh-runners."))).toEqual([
      "$KV.lspmesh-runners.r1",
    ]);
  });

  test("a static runner pinned to tenants follows only its own key (its id is its identity)", () => {
    const [runner] = natsUserPermissions({ runners: [{ id: "r1", tenants: ["acme"] }], tenants: ["acme"] }).filter(
      (u) => u.user === "r1",
    );
    const creates = runner?.publish.filter((subject) => subject.includes("CONSUMER.CREATE.KV_lspmesh-runner"));
    expect(creates).toEqual([
      "$JS.API.CONSUMER.CREATE.KV_lspmesh-runners.*.$KV.lspmesh-runners.r1",
      "$JS.API.CONSUMER.CREATE.KV_lspmesh-runner-claims.*.$KV.lspmesh-runner-claims.*.r1",
    ]);
  });
});
