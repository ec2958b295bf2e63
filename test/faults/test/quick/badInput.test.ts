// Bad input, generated: every tool's arguments from fast-check — paths with `..`, `%2e`, NUL,
// unicode forms, absolute paths, a prefix sibling of the workspace, symlinks pointing out; negative,
// huge and non-integer positions; huge strings; wrong types; unknown fields — through the real
// gateway tools (the MCP server lspmesh serves, over an in-memory MCP transport) and a real runner
// with real language servers. Always a clear error or an answer, never a crash, a hang, or a byte
// from outside the workspace; nothing written outside it; the runner still answers afterwards.
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGatewayMcpServer, StaticRunnerRouter, StaticWorkspaceResolver } from "@lspmesh/gateway";
import { createClient } from "@lspmesh/grpc";
import { type RunningRunner, startRunner } from "@lspmesh/lsp-runner";
import { DEFAULT_CALL_TIMEOUT_MS, LOCAL_TENANT, Runner } from "@lspmesh/proto";
import { type FixtureWorkspace, fixtureWorkspace, fuzzSettings } from "@lspmesh/test-kit";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";

/**
 * Generated cases per tool: 300 in `npm test`, the full 10 000 per tool (210 000 in all) in
 * `npm run test:faults`; LSPMESH_FUZZ_RUNS and LSPMESH_FUZZ_SEED override (fuzzSettings).
 */
const FUZZ = fuzzSettings({ quick: 300, full: 10_000 });
/** Cases of the straight-to-gRPC property: a tenth of the per-tool count, at most 1 000. */
const GRPC_FUZZ = fuzzSettings({ quick: 100, full: 1_000 });
/** No single call may take longer than this, in ms. */
const CALL_LIMIT_MS = 15_000;
/** In every file outside the workspace: must never appear in an answer. */
const CANARY = "CANARY-7f3a91";

let fixture: FixtureWorkspace;
let base: string;
let runner: RunningRunner;
let router: StaticRunnerRouter;
let client: Client;
let tools: Array<{ name: string; readOnly: boolean; properties: Record<string, PropertySchema> }>;

/** Every file below `dir` with its content hash (symlinks listed, not followed). */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
      else files[path] = "symlink";
    }
  };
  walk(dir);
  return files;
}
let outsideBefore: Record<string, string>;

/** Puts the pristine workspace back (write tools move and edit its files). */
function restore(): void {
  rmSync(fixture.dir, { recursive: true, force: true });
  cpSync(join(base, "pristine"), fixture.dir, { recursive: true, verbatimSymlinks: true });
}
const outsideDirs = () => [join(base, "outside"), join(base, "workspace-evil")];

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-basic");
  base = join(fixture.dir, "..");
  writeFileSync(join(base, "outside", "secret.ts"), `export const secret = "${CANARY}";\n`);
  mkdirSync(join(base, "workspace-evil"));
  writeFileSync(join(base, "workspace-evil", "evil.ts"), `export const evil = "${CANARY}";\n`);
  // Symlinks that point out of the workspace: a file (src/leak.ts, made by the fixture) and a
  // folder, absolute and relative.
  symlinkSync("../../outside/secret.ts", join(fixture.dir, "src", "leak-relative.ts"));
  symlinkSync(join(base, "outside"), join(fixture.dir, "src", "leakdir"));
  // A name whose NFC and NFD forms differ.
  writeFileSync(join(fixture.dir, "src", "caf\u00e9.ts"), "export const café = 1;\n");
  outsideBefore = Object.assign({}, ...outsideDirs().map(snapshot));
  // The pristine workspace, put back before each tool (write tools move and edit its files).
  cpSync(fixture.dir, join(base, "pristine"), { recursive: true, verbatimSymlinks: true });

  runner = await startRunner({
    listen: "127.0.0.1:0",
    workspaces: { dir: fixture.dir, tenant: LOCAL_TENANT, workspace: "default" },
  });
  router = new StaticRunnerRouter(runner.address);
  const server = createGatewayMcpServer({
    router,
    workspaces: new StaticWorkspaceResolver({ tenant: LOCAL_TENANT, workspace: "default" }),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    defaultPrincipal: { tenant: LOCAL_TENANT, subject: "fuzz", scopes: ["lsp:read", "lsp:write"] },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "bad-input", version: "1.0.0" });
  await client.connect(clientSide);
  const listed = await client.listTools();
  tools = listed.tools.map((tool) => ({
    name: tool.name,
    readOnly: tool.annotations?.readOnlyHint === true,
    properties: (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>,
  }));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await router?.close();
  await runner?.close();
  fixture?.[Symbol.dispose]();
});

const pathParts = [
  "..",
  ".",
  "src",
  "outside",
  "workspace-evil",
  "secret.ts",
  "main.ts",
  "%2e%2e",
  "%2f",
  "leakdir",
  "\u0000",
  "~",
];
const hostilePath = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pathsOfInterest()) },
    {
      weight: 3,
      arbitrary: fc.array(fc.constantFrom(...pathParts), { minLength: 1, maxLength: 6 }).map((p) => p.join("/")),
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.constantFrom(...pathParts), { minLength: 1, maxLength: 6 }).map((p) => `/${p.join("/")}`),
    },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constant("a/".repeat(3000)) },
  );

function pathsOfInterest(): string[] {
  const outside = join(base, "outside", "secret.ts");
  return [
    "src/main.ts",
    "src/greeter.ts",
    "./src/main.ts",
    "src/../src/main.ts",
    "src//main.ts",
    "src/main.ts/",
    "SRC/MAIN.TS",
    "src/leak.ts",
    "src/leak-relative.ts",
    "src/leakdir/secret.ts",
    "src/caf\u00e9.ts",
    "src/cafe\u0301.ts",
    "../outside/secret.ts",
    "src/../../outside/secret.ts",
    "..%2foutside%2fsecret.ts",
    "%2e%2e/outside/secret.ts",
    "src\\..\\..\\outside\\secret.ts",
    "src/main.ts\u0000.png",
    "../workspace-evil/evil.ts",
    `${fixture.dir}-evil/evil.ts`,
    outside,
    `${fixture.dir}/../outside/secret.ts`,
    `file://${outside}`,
    "/etc/passwd",
    "/proc/self/environ",
    "~/.bashrc",
    "",
    ".",
    "/",
    "src",
  ];
}

const hostileNumber = () =>
  fc.oneof(
    fc.integer({ min: -3, max: 12 }),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER),
    fc.string({ maxLength: 4 }),
    fc.constant(null),
    fc.boolean(),
  );

const hostileString = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom("PoliteGreeter", "makeGreeting", "greet", "secret", "evil", "café", "") },
    { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constant("x".repeat(200_000)) },
    { weight: 1, arbitrary: hostilePath() },
  );

/** Edits as apply_workspace_edit takes them, every leaf sometimes hostile. */
const hostileEdit = () =>
  fc.record(
    {
      files: fc.array(
        fc.record(
          {
            file: fc.oneof(fc.constant("src/main.ts"), hostilePath()),
            edits: fc.array(
              fc.record(
                {
                  line: fc.oneof(fc.constant(1), hostileNumber()),
                  column: fc.oneof(fc.constant(1), hostileNumber()),
                  end_line: fc.oneof(fc.constant(1), hostileNumber()),
                  end_column: fc.oneof(fc.constant(1), hostileNumber()),
                  new_text: fc.oneof(fc.constant("// x\n"), hostileString()),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
            expected_sha256: fc.oneof(fc.string({ maxLength: 64 }), fc.constant("0".repeat(64))),
          },
          { requiredKeys: ["file"] },
        ),
        { maxLength: 3 },
      ),
      operations: fc.array(
        fc.record(
          {
            kind: fc.oneof(fc.constantFrom("create", "rename", "delete"), fc.string({ maxLength: 6 })),
            file: hostilePath(),
            new_file: hostilePath(),
          },
          { requiredKeys: ["kind", "file"] },
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  );

/** Batch queries: read tools (and not) with hostile arguments. */
const hostileQueries = () =>
  fc.array(
    fc.record({
      tool: fc.oneof(
        fc.constantFrom("hover", "find_definition", "find_references", "document_symbols", "diagnostics", "batch"),
        fc.constantFrom("rename_symbol", "apply_workspace_edit", ""),
        fc.string({ maxLength: 10 }),
      ),
      arguments: fc.record(
        {
          file: hostilePath(),
          symbol: hostileString(),
          line: hostileNumber(),
          files: fc.array(hostilePath(), { maxLength: 2 }),
        },
        { requiredKeys: [] },
      ),
    }),
    { maxLength: 25 },
  );

const PATH_ARGUMENTS = /^(file|files|path|paths|new_path|old_path|new_file|uri|from|to)$/;

/** A value for one argument: mostly of its own kind, sometimes anything at all. */
function valueFor(name: string, type: string | string[] | undefined): fc.Arbitrary<unknown> {
  const kinds = Array.isArray(type) ? type : [type];
  const own =
    name === "edit"
      ? hostileEdit()
      : name === "queries"
        ? hostileQueries()
        : PATH_ARGUMENTS.test(name)
          ? kinds.includes("array")
            ? fc.array(hostilePath(), { maxLength: 4 })
            : hostilePath()
          : kinds.includes("integer") || kinds.includes("number")
            ? hostileNumber()
            : kinds.includes("boolean")
              ? fc.oneof(fc.boolean(), fc.constantFrom("true", 1, null))
              : kinds.includes("string")
                ? hostileString()
                : fc.jsonValue({ maxDepth: 3 });
  return fc.oneof({ weight: 8, arbitrary: own }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
}

/** A valid value for each argument name: the base every case mutates. */
const VALID: Record<string, unknown> = {
  file: "src/main.ts",
  line: 3,
  symbol: "PoliteGreeter",
  occurrence: 1,
  include_declaration: true,
  limit: 20,
  offset: 0,
  query: "Greet",
  workspaces: ["default"],
  files: ["src/main.ts"],
  wait_ms: 0,
  end_line: 4,
  kinds: ["quickfix"],
  apply: false,
  tab_size: 2,
  insert_spaces: true,
  new_name: "Greeter2",
  new_file: "src/moved.ts",
  depth: 1,
  edit: { changes: [{ file: "src/main.ts", edits: [] }] },
  queries: [{ tool: "hover", arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 } }],
};

type PropertySchema = { type?: string | string[]; enum?: unknown[] };

/**
 * A valid call with one to three of its arguments replaced by hostile values (or removed), and
 * now and then an unknown argument: deep enough to reach the runner and the language server.
 */
function argumentsFor(properties: Record<string, PropertySchema>): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(properties);
  const base = Object.fromEntries(
    names.flatMap((name) => {
      const valid = properties[name]?.enum?.[0] ?? VALID[name];
      return valid === undefined ? [] : [[name, valid]];
    }),
  );
  const mutation = fc
    .constantFrom(...names)
    .chain((name) =>
      fc.oneof(
        { weight: 9, arbitrary: valueFor(name, properties[name]?.type).map((value) => [name, value] as const) },
        { weight: 1, arbitrary: fc.constant([name, undefined] as const) },
      ),
    );
  return fc
    .tuple(
      fc.array(mutation, { minLength: names.length > 0 ? 1 : 0, maxLength: Math.min(3, names.length) }),
      fc.option(fc.tuple(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })), { freq: 5 }),
    )
    .map(([mutations, unknown]) => {
      const args: Record<string, unknown> = { ...base };
      for (const [name, value] of mutations) {
        if (value === undefined) delete args[name];
        else args[name] = value;
      }
      if (unknown && !(unknown[0] in properties)) args[unknown[0]] = unknown[1];
      return args;
    });
}

type CallOutcome =
  | { kind: "answer"; isError: boolean; text: string; raw: string }
  | { kind: "protocol-error"; message: string };

async function call(name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${CALL_LIMIT_MS} ms`)), CALL_LIMIT_MS);
  });
  try {
    const result = (await Promise.race([client.callTool({ name, arguments: args }), timeout])) as {
      isError?: boolean;
      content: Array<{ type: string; text?: string }>;
    };
    const text = result.content.map((part) => part.text ?? "").join("\n");
    if (result.isError && !/^[A-Z_]+: \S/.test(text)) throw new Error(`${name}: an error without a code: ${text}`);
    if (result.isError && text.startsWith("INTERNAL")) throw new Error(`${name}: internal error: ${text}`);
    // The runner is up throughout: "unavailable" would be a request the gateway failed to send.
    if (result.isError && text.startsWith("UNAVAILABLE: the runner is unavailable"))
      throw new Error(`${name}: internal error: ${text}`);
    return { kind: "answer", isError: result.isError === true, text, raw: JSON.stringify(result) };
  } catch (error) {
    // The MCP layer may refuse malformed arguments as a protocol error (InvalidParams): a clear error too.
    const message = error instanceof Error ? error.message : String(error);
    if (/did not answer within|without a code|internal error/.test(message)) throw error;
    if (!/invalid|expected|required|argument/i.test(message))
      throw new Error(`${name}: unexpected failure: ${message}`);
    return { kind: "protocol-error", message };
  } finally {
    clearTimeout(timer);
  }
}

test("every tool, hundreds (test:faults: thousands) of generated arguments: a clear error or an answer, nothing from outside the workspace", async () => {
  // Per tool: outcomes by error code ("ok" for answers), to see what the cases reached.
  const counts: Record<string, Record<string, number>> = {};
  const fuzz = async (tool: (typeof tools)[number]) => {
    const count: Record<string, number> = {};
    counts[tool.name] = count;
    await fc.assert(
      fc.asyncProperty(argumentsFor(tool.properties), async (args) => {
        const outcome = await call(tool.name, args);
        if (outcome.kind === "answer") {
          expect(outcome.raw, `${tool.name} ${JSON.stringify(args).slice(0, 300)}`).not.toContain(CANARY);
          const code = outcome.isError ? (outcome.text.match(/^[A-Z_]+/)?.[0] ?? "?") : "ok";
          count[code] = (count[code] ?? 0) + 1;
          if (process.env.LSPMESH_BAD_INPUT_DEBUG && code === process.env.LSPMESH_BAD_INPUT_DEBUG && count[code]! < 6)
            console.log(tool.name, JSON.stringify(args).slice(0, 200), "→", outcome.text.slice(0, 200));
        } else count.protocol = (count.protocol ?? 0) + 1;
      }),
      { ...FUZZ, endOnFailure: true },
    );
  };
  // Read tools four at a time (they change nothing); write tools one at a time, each on a pristine copy.
  // LSPMESH_BAD_INPUT_TOOLS=a,b limits the run to those tools (for investigating a finding).
  const only = process.env.LSPMESH_BAD_INPUT_TOOLS?.split(",");
  if (only) tools = tools.filter((tool) => only.includes(tool.name));
  const readOnly = tools.filter((tool) => tool.readOnly);
  for (let i = 0; i < readOnly.length; i += 4) await Promise.all(readOnly.slice(i, i + 4).map(fuzz));
  for (const tool of tools.filter((candidate) => !candidate.readOnly)) {
    restore();
    await fuzz(tool);
  }
  restore();
  console.log(JSON.stringify(counts));

  // Nothing outside the workspace changed, and the runner still answers correctly.
  expect(Object.assign({}, ...outsideDirs().map(snapshot))).toEqual(outsideBefore);
  expect(statSync(join(base, "outside")).isDirectory()).toBe(true);
  const hover = await call("hover", { file: "src/greeter.ts", symbol: "PoliteGreeter" });
  expect(hover.kind === "answer" && hover.text).toContain("PoliteGreeter");
}, 1_800_000);

test("gRPC straight to the runner, generated field values: a status with a code, never another workspace's bytes", async () => {
  const grpc = createClient(Runner, runner.address);
  const codes: Record<string, number> = {};
  const ref = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ tenant: LOCAL_TENANT, workspace: "default" }) },
    {
      weight: 2,
      arbitrary: fc.record({
        tenant: fc.oneof(
          fc.constantFrom(LOCAL_TENANT, "", "..", "acme", "local/..", "LOCAL"),
          fc.string({ maxLength: 12 }),
        ),
        workspace: fc.oneof(
          fc.constantFrom(
            "default",
            "",
            "..",
            "../outside",
            "default/..",
            "default\u0000",
            "outside",
            "workspace-evil",
          ),
          fc.string({ maxLength: 12 }),
        ),
      }),
    },
  );
  const uint = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(0, 2 ** 32 - 1, 2 ** 31));
  const at = fc.record({
    file: hostilePath(),
    target: fc.oneof(
      fc.record({ case: fc.constant("position" as const), value: fc.record({ line: uint, column: uint }) }),
      fc.record({
        case: fc.constant("symbol" as const),
        value: fc.record({ name: hostileString(), lineHint: uint, occurrence: uint, columnHint: uint }),
      }),
    ),
  });
  const requests = fc.oneof(
    fc
      .record({ workspace: ref, at })
      .map((request) => () => grpc.hover(request as never, { timeoutMs: CALL_LIMIT_MS })),
    fc
      .record({ workspace: ref, at })
      .map((request) => () => grpc.findDefinition(request as never, { timeoutMs: CALL_LIMIT_MS })),
    fc
      .record({ workspace: ref, at, includeDeclaration: fc.boolean(), limit: uint, offset: uint })
      .map((request) => () => grpc.findReferences(request as never, { timeoutMs: CALL_LIMIT_MS })),
    fc
      .record({ workspace: ref, file: hostilePath() })
      .map((request) => () => grpc.documentSymbols(request, { timeoutMs: CALL_LIMIT_MS })),
    fc
      .record({ workspace: ref, files: fc.array(hostilePath(), { maxLength: 3 }), waitMs: fc.constantFrom(0, 10) })
      .map((request) => () => grpc.diagnostics(request as never, { timeoutMs: CALL_LIMIT_MS })),
    fc
      .record({ workspace: ref, query: hostileString(), limit: uint })
      .map((request) => () => grpc.workspaceSymbols(request as never, { timeoutMs: CALL_LIMIT_MS })),
    fc
      .record({ workspace: ref, file: hostilePath(), newFile: hostilePath(), apply: fc.constant(false) })
      .map((request) => () => grpc.renameFile(request, { timeoutMs: CALL_LIMIT_MS })),
  );
  restore();
  await fc.assert(
    fc.asyncProperty(requests, async (send) => {
      try {
        const answer = await send();
        expect(JSON.stringify(answer, (_, value) => (typeof value === "bigint" ? String(value) : value))).not.toContain(
          CANARY,
        );
        codes.ok = (codes.ok ?? 0) + 1;
      } catch (error) {
        const status = error as { code?: number; details?: string; metadata?: { get(key: string): unknown[] } };
        const code = String(status.metadata?.get("lspmesh-error-code")?.[0] ?? "");
        expect(code, `a gRPC error without lspmesh's code: ${status.details}`).toMatch(/^[A-Z_]+$/);
        expect(code).not.toBe("INTERNAL");
        expect(status.details ?? "").not.toContain(CANARY);
        codes[code] = (codes[code] ?? 0) + 1;
      }
    }),
    { ...GRPC_FUZZ, endOnFailure: true },
  );
  grpc.close();
  console.log("gRPC", JSON.stringify(codes));
  expect(Object.assign({}, ...outsideDirs().map(snapshot))).toEqual(outsideBefore);
}, 600_000);
