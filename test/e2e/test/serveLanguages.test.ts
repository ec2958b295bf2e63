// `lspmesh serve --languages FILE`: a bad file stops the command with every bad field named; a
// good one changes which language server answers (here: opting into native TypeScript 7).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FixtureWorkspace, fixtureWorkspace, startServe } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, test } from "vitest";

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/lspmesh.js", import.meta.url));

let configDir: string;
let fixture: FixtureWorkspace;

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), "lspmesh-languages-"));
  fixture = fixtureWorkspace("typescript-basic");
});

afterAll(() => {
  fixture?.[Symbol.dispose]();
  rmSync(configDir, { recursive: true, force: true });
});

test("an invalid languages file stops serve with exit code 2 and names the bad fields", () => {
  const file = join(configDir, "bad.json");
  writeFileSync(file, JSON.stringify({ languages: { go: { args: [1] }, python: { comand: "basedpyright" } } }));
  const result = spawnSync(process.execPath, [CLI, "serve", fixture.dir, "--port", "0", "--languages", file], {
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toBe(
    `lspmesh serve: languages file ${file} is invalid:\n` +
      "  - languages.go.args[0]: Invalid input: expected string, received number\n" +
      '  - languages.python: unknown field "comand"\n',
  );
});

test("a languages file opting into native TypeScript 7 changes the server that answers", async () => {
  const file = join(configDir, "typescript7.json");
  writeFileSync(
    file,
    JSON.stringify({ languages: { typescript: { enabled: false }, "typescript-native": { enabled: true } } }),
  );
  await using serve = await startServe(fixture.dir, ["--languages", file]);
  const client = new Client({ name: "lspmesh-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  try {
    const result = (await client.callTool({
      name: "find_definition",
      arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 },
    })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ language: "typescript-native", state: "ready" });
    expect(result.structuredContent?.server).toMatch(/^typescript-go 7\./);
    expect(result.content[0]?.text).toContain("src/greeter.ts:7:14");
  } finally {
    await client.close();
  }
});
