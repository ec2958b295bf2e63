// A workspace's tsconfig naming a language-service plugin that is installed beside the runner's
// TypeScript: tsserver does not load it (tsserverPluginGuard.cjs). The control, the same language
// without the guard, does load it, so the test can fail.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { startFixtureRunner, ws } from "./support/fixtureRunner.js";

const require = createRequire(import.meta.url);
// Where tsserver looks for plugins: the node_modules its own package sits in.
const pluginsHome = dirname(dirname(dirname(require.resolve("typescript/lib/tsserver.js"))));
const pluginName = `lspmesh-probe-plugin-${randomBytes(4).toString("hex")}`;
const pluginDir = join(pluginsHome, pluginName);
let markers: string;

beforeAll(() => {
  markers = mkdtempSync(join(tmpdir(), "lspmesh-plugin-markers-"));
  mkdirSync(pluginDir);
  writeFileSync(
    join(pluginDir, "package.json"),
    JSON.stringify({ name: pluginName, version: "1.0.0", main: "index.js" }),
  );
  writeFileSync(
    join(pluginDir, "index.js"),
    `module.exports = function init() {
  require("node:fs").writeFileSync(${JSON.stringify(join(markers, "loaded"))} + process.pid, "loaded");
  return { create: (info) => info.languageService };
};\n`,
  );
});

afterAll(() => {
  rmSync(pluginDir, { recursive: true, force: true });
  rmSync(markers, { recursive: true, force: true });
});

const files = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, plugins: [{ name: pluginName }] },
    include: ["src"],
  }),
  "src/main.ts": "export const answer = 42;\n",
};

async function hoverWith(language: ReturnType<typeof typescriptLanguage>): Promise<boolean> {
  await using env = await startFixtureRunner({ files, languages: new LanguageRegistry([language]) });
  const hover = await env.client.hover({
    workspace: ws,
    at: { file: "src/main.ts", target: { case: "symbol", value: { name: "answer", lineHint: 1, occurrence: 0 } } },
  });
  expect(hover.contents).toContain("answer");
  return existsSync(markers) && require("node:fs").readdirSync(markers).length > 0;
}

test("a plugin named by the workspace's tsconfig is not loaded (control: without the guard it is)", async () => {
  expect(await hoverWith(typescriptLanguage())).toBe(false);
  const { env: _guard, ...unguarded } = typescriptLanguage();
  expect(await hoverWith(unguarded)).toBe(true);
}, 120_000);
