// Automatic type acquisition stays off: a JavaScript project that depends on an untyped package
// makes TypeScript run npm to download @types packages into ~/.cache/typescript (network, and a
// home folder shared by every workspace of a runner). Each TypeScript server runs here with its
// own HOME and an npm registry that refuses connections; neither may touch them. The native
// server with acquisition left on shows what the check would catch.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitFor } from "@lspmesh/test-kit";
import { afterEach, expect, test } from "vitest";
import {
  LanguageRegistry,
  type LanguageServerConfig,
  typescriptLanguage,
  typescriptNativeLanguage,
} from "./runnerInternals.js";
import { startFixtureRunner, ws } from "./support/fixtureRunner.js";

/**
 * How long acquisition gets to show itself after the first answer, ms. It starts as the project
 * loads: with it on, the cache exists when the answer arrives (native) or ~100 ms later (tsserver's
 * typings installer), so this is ten times that. The wait proves that nothing happens: no
 * condition to wait for instead.
 */
const QUIET_MS = 1_000;
const cleanup: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A JS project needing lodash's types, and an empty home folder for the server. */
function project() {
  const root = mkdtempSync(join(tmpdir(), "lspmesh-ata-"));
  const dir = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(dir);
  mkdirSync(home);
  writeFileSync(join(dir, "package.json"), '{ "name": "x", "dependencies": { "lodash": "4.17.21" } }\n');
  writeFileSync(join(dir, "jsconfig.json"), '{ "compilerOptions": { "checkJs": true } }\n');
  writeFileSync(join(dir, "index.js"), 'const _ = require("lodash");\nmodule.exports = _.chunk([1, 2, 3], 2);\n');
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  return { dir, home };
}

async function hoverWith(language: LanguageServerConfig, dir: string, home: string): Promise<void> {
  // npm on a closed port: an attempt fails at once instead of reaching the registry.
  const isolated = { ...language, env: { ...language.env, HOME: home, npm_config_registry: "http://127.0.0.1:9" } };
  const env = await startFixtureRunner({ dir, languages: new LanguageRegistry([isolated]), watchWorkspaces: false });
  cleanup.push(() => env.close());
  await env.client.hover({
    workspace: ws,
    at: { file: "index.js", target: { case: "symbol", value: { name: "_", lineHint: 1, occurrence: 0 } } },
  });
}

const touched = (home: string) => (existsSync(home) ? readdirSync(home) : []);

test.each([
  ["typescript-language-server", typescriptLanguage()],
  ["native TypeScript 7", typescriptNativeLanguage()],
])("%s acquires no types: no npm run, no cache in its home folder", async (_name, language) => {
  const { dir, home } = project();
  await hoverWith(language, dir, home);
  await sleep(QUIET_MS);
  expect(touched(home)).toEqual([]);
});

test("the check can fail: native TypeScript 7 with acquisition on fills ~/.cache/typescript", async () => {
  const { dir, home } = project();
  const native = typescriptNativeLanguage();
  const on = { typescript: { tsserver: { automaticTypeAcquisition: { enabled: true } } } };
  await hoverWith({ ...native, settings: { ...native.settings, ...on, javascript: on.typescript } }, dir, home);
  // The cache folder appears before the typescript folder inside it: wait for the one asserted.
  await waitFor("type acquisition to create its cache", () => existsSync(join(home, ".cache", "typescript")));
  expect(touched(home)).toContain(".cache");
});
