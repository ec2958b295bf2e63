// The agent's loop through `lspmesh serve` and the official MCP client: look around (search_text,
// read_file, list_files, find_symbol, names instead of positions), check a change before writing
// it (check_edit), change by symbol and see what it broke, restart a server. Real servers only.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { type FixtureWorkspace, fixtureWorkspace, type ServeProcess, startServe } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

interface Change {
  file: string;
  state: "new" | "fixed" | "unchanged";
  message: string;
}

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

/** Every file's path and bytes under `dir`, hashed: equal before and after means nothing was written. */
function treeHash(dir: string): string {
  const hash = createHash("sha256");
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(`${relative(dir, path)}\0`).update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest("hex");
}

/** The delta of a check_edit or edit answer, flattened to (file, state, message). */
function changesOf(result: ToolResult): Change[] {
  const structured = result.structuredContent as { delta?: { changes: Change[] }; changes?: Change[] };
  const changes = structured.changes ?? structured.delta?.changes ?? [];
  return changes.map(({ file, state, message }) => ({ file, state, message }));
}

async function connect(serve: ServeProcess): Promise<Client> {
  const client = new Client({ name: "lspmesh-e2e-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  return client;
}

describe("TypeScript workspace", () => {
  let fixture: FixtureWorkspace;
  let serve: ServeProcess;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  beforeAll(async () => {
    fixture = fixtureWorkspace("typescript-basic");
    serve = await startServe(fixture.dir);
    client = await connect(serve);
  });

  afterAll(async () => {
    await client?.close();
    await serve?.stop();
    fixture?.[Symbol.dispose]();
  });

  // makeGreeting returns a number instead of a string: main.ts's `.length` breaks, broken.ts's
  // `count: number = makeGreeting(…)` is fixed.
  const breakingChange = {
    edit: {
      files: [
        {
          file: "src/greeter.ts",
          edits: [{ line: 14, column: 45, end_line: 15, end_column: 42, new_text: "number {\n  return 42;" }],
        },
      ],
    },
    wait_ms: 20_000,
  };

  test("check_edit of a breaking change to an exported signature reports its importers' new errors and writes nothing", async () => {
    const before = treeHash(fixture.dir);
    const result = await call("check_edit", breakingChange);
    expect(result.isError, text(result)).toBeFalsy();
    const changes = changesOf(result);
    expect(changes).toContainEqual(
      expect.objectContaining({ file: "src/main.ts", state: "new", message: expect.stringMatching(/length/) }),
    );
    expect(changes).toContainEqual(expect.objectContaining({ file: "src/broken.ts", state: "fixed" }));
    expect(treeHash(fixture.dir)).toBe(before);
    // Later questions see the disk, not the overlay.
    const hover = await call("hover", { file: "src/greeter.ts", symbol: "makeGreeting", line: 14 });
    expect(text(hover)).toContain("makeGreeting(name: string): string");
  });

  test("two concurrent check_edits each get their own delta", async () => {
    const fixBroken = {
      edit: {
        files: [
          { file: "src/broken.ts", edits: [{ line: 3, column: 21, end_line: 3, end_column: 27, new_text: "string" }] },
        ],
      },
      wait_ms: 20_000,
    };
    const [breaking, fixing] = await Promise.all([call("check_edit", breakingChange), call("check_edit", fixBroken)]);
    expect(changesOf(breaking)).toContainEqual(expect.objectContaining({ file: "src/main.ts", state: "new" }));
    const fixed = changesOf(fixing);
    expect(fixed).toContainEqual(expect.objectContaining({ file: "src/broken.ts", state: "fixed" }));
    expect(fixed.filter((change) => change.state === "new")).toEqual([]);
  });

  test("unknown arguments are refused, naming them", async () => {
    const result = await call("diagnostics", { files: ["src/broken.ts"], text: "const x: number = 'a';" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^INVALID_ARGUMENT: .*unknown argument: text .*accepted: .*files/);
  });

  test("search_text, read_file and list_files answer from the workspace", async () => {
    const search = await call("search_text", { query: "makeGreeting" });
    expect(search.isError, text(search)).toBeFalsy();
    const matches = (search.structuredContent as { matches: Array<{ file: string; line: number; column: number }> })
      .matches;
    // The declaration ranks first.
    expect(matches[0]).toMatchObject({ file: "src/greeter.ts", line: 14, column: 17 });
    expect(matches.length).toBeGreaterThanOrEqual(5);
    const read = await call("read_file", { file: "src/greeter.ts", start_line: 14, end_line: 14 });
    expect(text(read)).toContain("export function makeGreeting(name: string): string {");
    const outside = await call("read_file", { file: "../outside.txt" });
    expect(outside.isError).toBe(true);
    const list = await call("list_files", { glob: "src/**/*.ts" });
    const files = (list.structuredContent as { files: Array<{ file: string }> }).files.map((f) => f.file);
    expect(files).toEqual(["src/broken.ts", "src/greeter.ts", "src/main.ts"]);
  });

  test("find_symbol answers a declaration with its body; find_definition takes a name alone", async () => {
    const found = await call("find_symbol", { name: "PoliteGreeter.greet", include_body: true });
    expect(found.isError, text(found)).toBeFalsy();
    expect(text(found)).toContain("return `Good day, ${name}`;");
    const definition = await call("find_definition", { symbol: "makeGreeting" });
    expect(definition.isError, text(definition)).toBeFalsy();
    expect(text(definition)).toContain("src/greeter.ts:14:17");
  });

  test("a symbol edit applied reports what it broke", async () => {
    const result = await call("replace_symbol_body", {
      file: "src/greeter.ts",
      symbol: "makeGreeting",
      text: "export function makeGreeting(name: string): number {\n  return name.length;\n}",
      apply: true,
      wait_ms: 20_000,
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(readFileSync(join(fixture.dir, "src/greeter.ts"), "utf8")).toContain("return name.length;");
    expect(changesOf(result)).toContainEqual(expect.objectContaining({ file: "src/main.ts", state: "new" }));
  });

  test("restart_language_server answers once the new server is ready", async () => {
    const result = await call("restart_language_server", { language: "typescript" });
    expect(result.isError, text(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: "ready", partial: false });
    const hover = await call("hover", { file: "src/main.ts", symbol: "wave", line: 4 });
    expect(text(hover)).toContain("const wave");
  });
});

describe("Python workspace", () => {
  let fixture: FixtureWorkspace;
  let serve: ServeProcess;
  let client: Client;

  beforeAll(async () => {
    fixture = fixtureWorkspace("python-basic");
    serve = await startServe(fixture.dir);
    client = await connect(serve);
  });

  afterAll(async () => {
    await client?.close();
    await serve?.stop();
    fixture?.[Symbol.dispose]();
  });

  test("check_edit of a changed signature reports the new error in an importer", async () => {
    const before = treeHash(fixture.dir);
    // make_greeting(name) gains a required second parameter: every caller breaks.
    const result = (await client.callTool({
      name: "check_edit",
      arguments: {
        patch: [
          "--- a/src/greeter.py",
          "+++ b/src/greeter.py",
          "@@ -11,2 +11,2 @@",
          "-def make_greeting(name: str) -> str:",
          "+def make_greeting(name: str, punctuation: str) -> str:",
          "     return PoliteGreeter().greet(name)",
          "",
        ].join("\n"),
        wait_ms: 20_000,
      },
    })) as ToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(changesOf(result)).toContainEqual(
      expect.objectContaining({ file: "src/main.py", state: "new", message: expect.stringMatching(/punctuation/) }),
    );
    expect(treeHash(fixture.dir)).toBe(before);
  });
});
