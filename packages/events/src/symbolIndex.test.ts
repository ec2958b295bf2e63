import { expect, test } from "vitest";
import {
  memberOfQualifiedName,
  parseSymbolIndexKey,
  symbolIndexBucket,
  symbolIndexFileKey,
  symbolIndexMetaKey,
  tenantOfSymbolIndexBucket,
} from "./symbolIndex.js";

test("keys name their workspace and file and parse back", () => {
  for (const file of ["src/a.ts", "src/dir.with.dots/x y.ts", "日本/🎉.py"]) {
    const key = symbolIndexFileKey("web", file);
    expect(key).toMatch(/^[-/_=.a-zA-Z0-9]+$/);
    expect(parseSymbolIndexKey(key)).toEqual({ workspace: "web", kind: "file", file });
  }
  expect(parseSymbolIndexKey(symbolIndexMetaKey("web"))).toEqual({ workspace: "web", kind: "meta" });
  expect(parseSymbolIndexKey("web.other")).toBeUndefined();
});

test("one bucket per tenant, and only symbol index buckets name a tenant", () => {
  expect(symbolIndexBucket("acme")).toBe("lspmesh-symbols-acme");
  expect(tenantOfSymbolIndexBucket("lspmesh-symbols-acme")).toBe("acme");
  expect(tenantOfSymbolIndexBucket("lspmesh-runners")).toBeUndefined();
});

test("members named with their type (gopls) split into the member's name and the type", () => {
  expect(memberOfQualifiedName("go", "(*Command).Execute", "method")).toEqual({
    name: "Execute",
    container: "Command",
  });
  expect(memberOfQualifiedName("go", "(List[T]).Push", "method")).toEqual({ name: "Push", container: "List" });
  expect(memberOfQualifiedName("go", "Command.Execute", "method")).toEqual({ name: "Execute", container: "Command" });
  expect(memberOfQualifiedName("go", "cobra.Command.Use", "field")).toEqual({ name: "Use", container: "Command" });
  expect(memberOfQualifiedName("go", "Größe.Wert", "field")).toEqual({ name: "Wert", container: "Größe" });
  // Functions keep their (package-qualified) names; other languages keep dotted names as they are.
  expect(memberOfQualifiedName("go", "cobra.Execute", "function")).toBeUndefined();
  expect(memberOfQualifiedName("python", "Command.Execute", "method")).toBeUndefined();
  expect(memberOfQualifiedName("go", "Execute", "method")).toBeUndefined();
});
