// Routing by the languages runners advertise: two runner pools on one workspaces root, each
// configured only by its languages file — one serving TypeScript through native TypeScript 7
// (`typescript-native`), one serving Python through a language the file adds (`pyright-pool`, not
// a built-in id). A gateway reading the NATS registry sends each file of one workspace to the pool
// whose advertised extensions claim it, and answers a file no pool serves with NO_LANGUAGE_SERVER.
// Every part is a real process; calls go through the official MCP client.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fixturePath,
  type GatewayProcess,
  type NatsServer,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

const BUILT_INS_OFF = Object.fromEntries(
  ["typescript", "python", "go", "cpp", "rust"].map((id) => [id, { enabled: false }]),
);

let root: string;
let nats: NatsServer;
let typescriptPool: RunnerProcess;
let pythonPool: RunnerProcess;
let gateway: GatewayProcess;
let client: Client;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-cluster-languages-"));
  const workspaces = join(root, "workspaces");
  // One workspace with both languages: the TypeScript fixture in src/, the Python one in py/.
  const mixed = join(workspaces, "acme", "mixed");
  cpSync(fixturePath("typescript-basic"), mixed, { recursive: true });
  mkdirSync(join(mixed, "py"));
  cpSync(join(fixturePath("python-basic"), "src"), join(mixed, "py"), { recursive: true });
  writeFileSync(
    join(mixed, "pyrightconfig.json"),
    JSON.stringify({ include: ["py"], executionEnvironments: [{ root: "py" }], pythonVersion: "3.11" }),
  );
  writeFileSync(join(mixed, "notes.txt"), "not code\n");

  const tenancy = writeTenancyFiles(root, {
    tenants: { acme: { workspaces: ["mixed"] } },
    keys: { "acme-agent": { tenant: "acme" } },
  });

  nats = await startNatsServer({ secured: { tenants: ["acme"] } });
  const pyright = createRequire(import.meta.url).resolve("pyright/langserver.index.js");
  [typescriptPool, pythonPool] = await Promise.all([
    startRunnerProcess(workspaces, nats, "ts7-0", {
      pool: "typescript-native",
      languages: { languages: { ...BUILT_INS_OFF, "typescript-native": { enabled: true } } },
    }),
    startRunnerProcess(workspaces, nats, "pyright-0", {
      pool: "pyright",
      languages: {
        languages: {
          ...BUILT_INS_OFF,
          "pyright-pool": {
            extensions: { ".py": "python" },
            command: process.execPath,
            args: [pyright, "--stdio"],
            initializationOptions: { disablePullDiagnostics: true },
          },
        },
      },
    }),
  ]);
  gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy });
  await waitFor("2 live runners", async () => (await gateway.liveRunners()) === 2);
  client = new Client({ name: "cluster-languages-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      requestInit: { headers: { authorization: `Bearer ${tenancy.tokens["acme-agent"]}` } },
    }),
  );
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await gateway?.stop();
  await Promise.all([typescriptPool?.stop(), pythonPool?.stop()]);
  await nats?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool(
    { name, arguments: { workspace: "mixed", ...args } },
    { timeout: 60_000 },
  )) as ToolResult;
}

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

test("a .ts file goes to the typescript-native pool, and only there", async () => {
  const result = await call("find_definition", { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 });
  expect(result.isError, text(result)).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ language: "typescript-native", state: "ready" });
  expect(text(result)).toContain("src/greeter.ts:7:14");
  expect(await typescriptPool.sessions("acme", "mixed")).toEqual(["typescript-native"]);
  expect(await pythonPool.sessions("acme", "mixed")).toEqual([]);
});

test("a .py file goes to the pool whose languages file added a language for it", async () => {
  const result = await call("find_definition", { file: "py/main.py", symbol: "PoliteGreeter", line: 3 });
  expect(result.isError, text(result)).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ language: "pyright-pool" });
  expect(text(result)).toContain("py/greeter.py:");
  expect(await pythonPool.sessions("acme", "mixed")).toEqual(["pyright-pool"]);
});

test("diagnostics for files of both languages merge the answers of both pools", async () => {
  const result = await call("diagnostics", { files: ["src/broken.ts", "py/broken.py"], wait_ms: 10_000 });
  expect(result.isError, text(result)).toBeFalsy();
  const files = (result.structuredContent?.files as Array<{ file: string; diagnostics: unknown[] }>) ?? [];
  expect(files.map((file) => file.file).sort()).toEqual(["py/broken.py", "src/broken.ts"]);
  for (const file of files) expect(file.diagnostics.length, file.file).toBeGreaterThan(0);
  expect(result.structuredContent?.partial).toBe(false);
});

test("a file no pool serves is NO_LANGUAGE_SERVER naming what is served; alongside others it is reported missing", async () => {
  const alone = await call("hover", { file: "notes.txt", line: 1, column: 1 });
  expect(alone.isError).toBe(true);
  expect(text(alone)).toMatch(
    /^NO_LANGUAGE_SERVER: no language server here serves "\.txt" files \(served: [^)]*\.py[^)]*\.ts/,
  );

  const mixed = await call("diagnostics", { files: ["src/main.ts", "notes.txt"], wait_ms: 5_000 });
  expect(mixed.isError, text(mixed)).toBeFalsy();
  expect(mixed.structuredContent?.partial).toBe(true);
  expect(text(mixed)).toContain("notes.txt not answered (NO_LANGUAGE_SERVER");
});
