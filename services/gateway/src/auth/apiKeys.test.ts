import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ApiKeyStore, sha256Hex } from "./apiKeys.js";
import { ADMIN_SCOPE } from "./principal.js";
import { missingScope } from "./scopeDecision.js";

const record = (token: string, extra: Record<string, unknown> = {}) => ({
  id: "ci",
  sha256: sha256Hex(token),
  tenant: "acme",
  scopes: ["lsp:read"],
  ...extra,
});

test("a presented token maps to its tenant, scopes and workspaces; the store holds only hashes", () => {
  const store = new ApiKeyStore([
    record("s3cret", { workspaces: ["web"] }),
    record("other", { id: "w", scopes: ["lsp:read", "lsp:write", "x"] }),
  ]);
  expect(store.verify("s3cret")).toEqual({
    tenant: "acme",
    subject: "key:ci",
    scopes: ["lsp:read"],
    workspaces: ["web"],
  });
  expect(store.verify("other")?.scopes).toEqual(["lsp:read", "lsp:write"]);
  expect(store.verify("S3CRET")).toBeUndefined();
  expect(store.verify(sha256Hex("s3cret"))).toBeUndefined();
});

test("an admin key may hold lspmesh:admin alone: it then passes no tool's scope check", () => {
  const store = new ApiKeyStore([record("root", { scopes: ["lspmesh:admin"] })]);
  const principal = store.verify("root")!;
  expect(principal.scopes).toEqual(["lspmesh:admin"]);
  expect(missingScope(principal, "lsp:read")).toBe("lsp:read");
  expect(missingScope(principal, ADMIN_SCOPE)).toBeUndefined();
});

test("the hash is SHA-256 of the token's UTF-8 bytes, as sha256sum prints it", () => {
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("bad records name the record and the fix", () => {
  expect(() => new ApiKeyStore([record("a", { sha256: "xyz" })])).toThrow(/'ci'.*sha256 must be 64 hex/);
  expect(() => new ApiKeyStore([record("a", { tenant: "Acme" })])).toThrow(/tenant must be a tenant id/);
  expect(() => new ApiKeyStore([record("a", { scopes: ["admin"] })])).toThrow(/scopes must list/);
  expect(() => new ApiKeyStore([record("a", { workspaces: ["../x"] })])).toThrow(/workspaces/);
  expect(() => new ApiKeyStore([record("a"), record("a", { id: "b" })])).toThrow(/twice/);
});

test("fromFile reads { keys: [...] } and reports unreadable files", () => {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-keys-"));
  try {
    const path = join(dir, "keys.json");
    writeFileSync(path, JSON.stringify({ keys: [record("t")] }));
    expect(ApiKeyStore.fromFile(path).size).toBe(1);
    writeFileSync(path, "{");
    expect(() => ApiKeyStore.fromFile(path)).toThrow(/cannot read the API keys file/);
    writeFileSync(path, "{}");
    expect(() => ApiKeyStore.fromFile(path)).toThrow(/needs a "keys" list/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
