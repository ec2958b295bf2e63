// Installed anywhere: the CLI packed as one tarball (apps/cli/scripts/packGlobal.mjs) and installed
// with `npm install -g` into a temporary prefix, then run from an unrelated folder the way desktop
// agents start it (no repository around): --version, serve with the official MCP client over
// HTTP, and mcp over stdio.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FixtureWorkspace, fixtureWorkspace, startServe } from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as StdioClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TOOL_CALLS } from "../src/toolCalls.js";

const PACK = fileURLToPath(new URL("../../../apps/cli/scripts/packGlobal.mjs", import.meta.url));
/** Packing (about 20 s) and installing (about 30 s) the self-contained tarball, on a busy machine. */
const INSTALL_TIMEOUT_MS = 240_000;

let root: string;
let bin: string;
let elsewhere: string;
let fixture: FixtureWorkspace;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-global-"));
  elsewhere = mkdtempSync(join(tmpdir(), "lspmesh-elsewhere-"));
  // Self-contained and --offline: the test never waits on (or depends on) the npm registry.
  const tarball = execFileSync(process.execPath, [PACK, "--self-contained", join(root, "pack")], {
    encoding: "utf8",
  }).trim();
  const prefix = join(root, "prefix");
  const install = spawnSync(
    "npm",
    ["install", "-g", "--prefix", prefix, "--offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball],
    { cwd: elsewhere, encoding: "utf8", timeout: INSTALL_TIMEOUT_MS },
  );
  expect(install.status, install.stderr).toBe(0);
  bin = join(prefix, "bin", "lspmesh");
  fixture = fixtureWorkspace("typescript-basic");
}, INSTALL_TIMEOUT_MS + 30_000);

afterAll(() => {
  fixture?.[Symbol.dispose]();
  for (const dir of [root, elsewhere]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test("--version from an unrelated folder names lspmesh and the bundled language servers", () => {
  const result = spawnSync(bin, ["--version"], { cwd: elsewhere, encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^lspmesh \d+\.\d+\.\d+ \(Node\.js v\d+/);
  expect(result.stdout).toMatch(/typescript +typescript-language-server \d/);
  expect(result.stdout).toMatch(/python +pyright \d/);
});

test("serve, started from an unrelated folder, answers the official MCP client", async () => {
  await using serve = await startServe(fixture.dir, [], { bin, cwd: elsewhere });
  const client = new Client({ name: "e2e-installed", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  try {
    const result = await client.callTool({
      name: "find_definition",
      arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("src/greeter.ts:7:14");
    // The console: servers found, how to connect an agent, and the server's progress lines.
    const printed = serve.stdout();
    expect(printed).toMatch(/Language servers: typescript \(typescript-language-server \d/);
    expect(printed).toContain(`claude mcp add --transport http lspmesh ${serve.url.href}`);
    expect(printed).toMatch(/lspmesh: typescript: ready \(\d+\.\d s\)/);
  } finally {
    await client.close();
  }
});

test("mcp over stdio, started with no repository around (cwd /), lists and calls tools", async () => {
  const client = new StdioClient({ name: "e2e-installed-stdio", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: bin, args: ["mcp", fixture.dir], cwd: "/", stderr: "pipe" }),
  );
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOL_CALLS).sort());
    const result = await client.callTool({
      name: "hover",
      arguments: { file: "src/main.ts", symbol: "greeter", line: 3 },
    });
    expect(result.isError).toBeFalsy();
  } finally {
    await client.close();
  }
});
