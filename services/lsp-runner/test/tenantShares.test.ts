// Fair shares: one tenant opening many workspaces (8; 50 in `npm run test:faults`) on a shared runner
// gets its limit of language servers and then RESOURCE_EXHAUSTED naming the limit, while another
// tenant's warm server stays exactly as it was (same process, never stopped).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceError } from "@lspmesh/grpc";
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { detectSandbox } from "../src/lsp/process/sandbox.js";
import { defaultLanguages, LanguageRegistry, type LifecycleEvent, VolumeWorkspaceLocator } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner } from "./support/fixtureRunner.js";

async function sandboxOrTrust() {
  const found = await detectSandbox();
  return "sandbox" in found ? { sandbox: found.sandbox } : { tenantsTrustEachOther: true };
}

/** Workspaces the one tenant opens, one after another. */
const WORKSPACES = isFaultsTier() ? 50 : 8;

let root: string;
let env: FixtureRunner;
let runner: FixtureRunner["runner"];
const lifecycle: LifecycleEvent[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-shares-"));
  const workspaces = [...Array.from({ length: WORKSPACES }, (_, i) => ["acme", `ws${i}`]), ["globex", "shop"]];
  for (const [tenant, workspace] of workspaces) {
    const dir = join(root, tenant!, workspace!, "src");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "main.ts"), `export function ${tenant}${workspace}(): number {\n  return 1;\n}\n`);
  }
  env = await startFixtureRunner({
    locator: new VolumeWorkspaceLocator(root),
    languages: new LanguageRegistry(defaultLanguages().filter((language) => language.id === "typescript")),
    // Servers used within the last minute are never stopped to make room.
    // Sandboxed like a shared runner (where bubblewrap works; elsewhere the tenants are declared
    // to trust each other, which the unsandboxed runner needs to hold both).
    sessionPolicy: {
      tenantLimits: { sessions: 3 },
      evictionGraceMs: 60_000,
      ...(await sandboxOrTrust()),
    },
    onLifecycleEvent: (event) => lifecycle.push(event),
  });
  runner = env.runner;
}, 60_000);

afterAll(async () => {
  await env?.close();
  rmSync(root, { recursive: true, force: true });
});

test(`one tenant opening ${WORKSPACES} workspaces: 3 servers, then RESOURCE_EXHAUSTED; the other tenant's warm server untouched`, async () => {
  const { client } = env;
  const outline = (tenant: string, workspace: string) =>
    client.documentSymbols({ workspace: { tenant, workspace }, file: "src/main.ts" }, { timeoutMs: 60_000 });
  const warm = await outline("globex", "shop");
  expect(warm.symbols.map((symbol) => symbol.name)).toEqual(["globexshop"]);
  const [globexPid] = await runner.sessions.pids();

  const outcomes: string[] = [];
  for (let i = 0; i < WORKSPACES; i++) {
    outcomes.push(
      await outline("acme", `ws${i}`).then(
        () => "ok",
        (error: ServiceError) => `${error.metadata.get("lspmesh-error-code")[0]}: ${error.details}`,
      ),
    );
  }
  expect(outcomes.slice(0, 3)).toEqual(["ok", "ok", "ok"]);
  expect(new Set(outcomes.slice(3)).size).toBe(1);
  expect(outcomes[3]).toMatch(
    /^RESOURCE_EXHAUSTED: this tenant already runs 3 language servers on this runner, its limit \(LSPMESH_TENANT_MAX_SESSIONS=3\)/,
  );
  // The message names no other tenant.
  expect(outcomes[3]).not.toContain("globex");

  // globex's server is the same process, never stopped, and still answers.
  expect(await runner.sessions.pids()).toContain(globexPid);
  expect(lifecycle.filter((event) => event.kind === "stopped" && event.tenant === "globex")).toEqual([]);
  expect((await outline("globex", "shop")).symbols.map((symbol) => symbol.name)).toEqual(["globexshop"]);
  expect((await runner.sessions.pids()).length).toBe(4);
}, 240_000);
