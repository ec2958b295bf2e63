// One tenant with more folders than its share of inotify watches (LSPMESH_TENANT_MAX_WATCHES): its
// index polls the folders it cannot watch and says so; the other tenant's watches are untouched,
// so its saved file is searchable within 2 s.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@lspmesh/test-kit";
import { afterEach, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage, VolumeWorkspaceLocator } from "./runnerInternals.js";
import { startFixtureRunner } from "./support/fixtureRunner.js";

const FOLDERS = 600;
const WATCHES = 200;
const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

test(`a tenant with ${FOLDERS} folders and ${WATCHES} watches is polled past them; another tenant's save is searchable within 2 s`, async () => {
  const root = mkdtempSync(join(tmpdir(), "lspmesh-watch-budget-"));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  const acme = join(root, "acme", "web");
  const globex = join(root, "globex", "shop");
  for (let index = 0; index < FOLDERS; index++) {
    mkdirSync(join(acme, `d${index}`), { recursive: true });
    writeFileSync(join(acme, `d${index}`, "file.ts"), `export const acme${index} = ${index};\n`);
  }
  mkdirSync(join(globex, "src"), { recursive: true });
  writeFileSync(join(globex, "src/main.ts"), "export const globexMain = 1;\n");
  const refs = [
    { tenant: "acme", workspace: "web" },
    { tenant: "globex", workspace: "shop" },
  ];
  await using env = await startFixtureRunner({
    locator: new VolumeWorkspaceLocator(root),
    languages: new LanguageRegistry([typescriptLanguage()]),
    symbolIndex: { workspaces: refs },
    sessionPolicy: { tenantLimits: { watches: WATCHES } },
    watchDebounceMs: 20,
    watchPollMs: 500,
  });
  const { runner } = env;
  const index = async (ref: (typeof refs)[number]) => {
    await runner.symbolIndexer!.settled(ref);
    return runner.events.symbolIndex.read(ref.tenant, ref.workspace);
  };
  const names = async (ref: (typeof refs)[number]) =>
    [...(await index(ref)).files.values()].flatMap((entry) => entry.symbols.map((symbol) => symbol.name));

  // Acme's index is complete, and says which folders it polls.
  expect((await names(refs[0]!)).length).toBe(FOLDERS);
  const acmeMeta = (await index(refs[0]!)).meta!;
  expect(acmeMeta.polled?.folders).toBeGreaterThan(FOLDERS - WATCHES - 1);
  expect((await index(refs[1]!)).meta!.polled).toBeUndefined();

  // Globex, watched: saved → searchable within 2 s.
  const saved = performance.now();
  writeFileSync(join(globex, "src/fresh.ts"), "export const freshGlobex = 1;\n");
  await waitFor("globex's new declaration in its index", async () => (await names(refs[1]!)).includes("freshGlobex"), {
    timeoutMs: 2_000,
  });
  expect(performance.now() - saved).toBeLessThan(2_000);

  // Acme's change in a polled folder is found by the next poll.
  writeFileSync(join(acme, `d${FOLDERS - 1}`, "late.ts"), "export const acmeLate = 1;\n");
  await waitFor("acme's new declaration in a polled folder", async () => (await names(refs[0]!)).includes("acmeLate"), {
    timeoutMs: acmeMeta.polled!.everyMs + 5_000,
  });
}, 120_000);
