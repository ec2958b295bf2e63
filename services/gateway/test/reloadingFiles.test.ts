// Mounted configuration changes in place: a rotated API key and a new workspace apply without a
// restart, and a broken edit keeps the last good file in force.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@lspmesh/test-kit";
import { afterEach, expect, test } from "vitest";
import { ApiKeyStore, sha256Hex } from "../src/auth/apiKeys.js";
import { reloadOnChange } from "../src/ops/reloadingFile.js";
import { readTenantsFile, TenantWorkspaceResolver } from "../src/tenancy/tenants.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-reload-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes the file with a modification time clearly after the previous one (coarse clocks). */
let tick = Date.now() / 1000;
function write(path: string, content: unknown): void {
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  tick += 5;
  utimesSync(path, tick, tick);
}

/**
 * Lets a new watcher take its first look, which records the file's modification time: a change
 * written before that would be taken for the original. Nothing announces that look, so this
 * waits 3 of the watchers' 20 ms intervals (the stat is one syscall).
 */
const firstLook = () => new Promise((resolve) => setTimeout(resolve, 60));

const key = (token: string) => ({ id: token, sha256: sha256Hex(token), tenant: "acme", scopes: ["lsp:read"] });

test("a rotated API key applies; a broken file keeps the last good keys and is reported", async () => {
  const path = join(tempDir(), "keys.json");
  write(path, { keys: [key("old-token")] });
  const store = ApiKeyStore.fromFile(path);
  const errors: string[] = [];
  let reloads = 0;
  const watcher = reloadOnChange({
    path,
    load: () => store.reloadFrom(path),
    onReloaded: () => reloads++,
    onError: (error) => errors.push(error.message),
    intervalMs: 20,
  });
  cleanups.push(() => watcher.close());
  await firstLook();

  write(path, { keys: [key("new-token")] });
  await waitFor("the new key", () => store.verify("new-token") !== undefined);
  expect(store.verify("old-token")).toBeUndefined();

  write(path, "{ broken");
  await waitFor("the error", () => errors.length > 0);
  expect(errors[0]).toMatch(/cannot read the API keys file .*keys\.json/);
  expect(store.verify("new-token")).toBeDefined();
  expect(reloads).toBe(1);
});

test("a workspace added to the tenants file becomes visible", async () => {
  const path = join(tempDir(), "tenants.json");
  write(path, { tenants: { acme: { workspaces: ["web"] } } });
  const resolver = new TenantWorkspaceResolver(readTenantsFile(path));
  const watcher = reloadOnChange({ path, load: () => resolver.replace(readTenantsFile(path)), intervalMs: 20 });
  cleanups.push(() => watcher.close());
  const caller = { principal: { tenant: "acme", subject: "t", scopes: ["lsp:read" as const] } };
  await firstLook();
  write(path, { tenants: { acme: { workspaces: ["web", "api"] } } });
  const visible = await waitFor("the new workspace", async () => {
    const workspaces = (await resolver.visible(caller)).map((target) => target.workspace);
    return workspaces.length === 2 && workspaces;
  });
  expect(visible).toEqual(["api", "web"]);
});
