import { describe, expect, test } from "vitest";
import { tenantOf } from "./workerConnections.js";

describe("tenantOf", () => {
  test("a CONNECT target names a tenant as <tenant>.tenants.lspmesh, any port", () => {
    expect(tenantOf("acme.tenants.lspmesh:1")).toBe("acme");
    expect(tenantOf("acme-2_x.tenants.lspmesh:443")).toBe("acme-2_x");
    expect(tenantOf("acme.tenants.lspmesh")).toBe("acme");
  });

  test("anything else names none: other hosts, ids a tenant cannot have, nesting", () => {
    for (const target of [
      "example.com:443",
      ".tenants.lspmesh:1",
      "../acme.tenants.lspmesh:1",
      "Acme.tenants.lspmesh:1",
      "a.b.tenants.lspmesh:1",
      "acme.tenants.lspmesh.evil:1",
      "",
    ])
      expect(tenantOf(target), target).toBeUndefined();
  });
});
