// Whole system: the official MCP client → `lspmesh serve` over real HTTP → gateway → gRPC →
// runner → a real typescript-language-server, on a fixture workspace.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  descendantPids,
  type FixtureWorkspace,
  fixtureWorkspace,
  isRunning,
  type ServeProcess,
  startServe,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

let fixture: FixtureWorkspace;
let serve: ServeProcess;
let client: Client;

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}
const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-basic");
  serve = await startServe(fixture.dir);
  client = new Client({ name: "lspmesh-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
});

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  fixture?.[Symbol.dispose]();
});

/** Where the fixture's makeGreeting (src/greeter.ts:14) is referenced, as typescript-language-server says. */
const MAKE_GREETING_REFERENCES = [
  "src/broken.ts:1:10",
  "src/broken.ts:3:30",
  "src/greeter.ts:14:17",
  "src/main.ts:1:10",
  "src/main.ts:4:37",
  "src/main.ts:4:76",
  "src/main.ts:6:30",
].sort();

describe("tools answer with the language server's answers, positions exact", () => {
  test("the tools are listed with input and output schemas", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      "find_definition",
      "find_references",
      "hover",
      "document_symbols",
      "workspace_symbols",
      "diagnostics",
    ]) {
      expect(names).toContain(name);
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.outputSchema).toBeDefined();
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  test("find_definition by symbol on a line with CJK and emoji before it", async () => {
    // Line 4: `const 挨拶 = "こんにちは 🎉🎉"; const wave = makeGreeting(…` — code-point column 37.
    const result = await call("find_definition", { file: "src/main.ts", symbol: "makeGreeting", line: 4 });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as {
      locations: Array<{ file: string; line: number; column: number }>;
      resolved: unknown;
    };
    expect(answer.resolved).toEqual({ line: 4, column: 37 });
    expect(answer.locations.map((l) => `${l.file}:${l.line}:${l.column}`)).toEqual(["src/greeter.ts:14:17"]);
    expect(text(result)).toContain("src/greeter.ts:14:17");
    expect(text(result)).toContain("export function makeGreeting(name: string): string {");
  });

  test("find_definition by line and column (the second call on that line, column 76)", async () => {
    const result = await call("find_definition", { file: "src/main.ts", line: 4, column: 76 });
    const answer = result.structuredContent as { locations: Array<{ file: string; line: number; column: number }> };
    expect(answer.locations.map((l) => `${l.file}:${l.line}:${l.column}`)).toEqual(["src/greeter.ts:14:17"]);
  });

  test("symbol and column together: the column when the symbol stands there, else the symbol near the line", async () => {
    // Line 4 calls makeGreeting at columns 37 and 76; column 80 is inside the second call.
    const there = await call("find_definition", { file: "src/main.ts", symbol: "makeGreeting", line: 4, column: 80 });
    expect(there.isError).toBeFalsy();
    expect((there.structuredContent as { resolved: unknown }).resolved).toEqual({ line: 4, column: 80 });
    expect(text(there)).toContain("(the given column)");
    // Column 3 is `const`: the symbol is searched on the line instead, and the text says so.
    const elsewhere = await call("find_definition", {
      file: "src/main.ts",
      symbol: "makeGreeting",
      line: 4,
      column: 3,
    });
    expect((elsewhere.structuredContent as { resolved: unknown }).resolved).toEqual({ line: 4, column: 37 });
    expect(text(elsewhere)).toContain("not at the given src/main.ts:4:3");
    expect(text(elsewhere)).toContain("src/greeter.ts:14:17");
  });

  test("find_references across files", async () => {
    const result = await call("find_references", { file: "src/greeter.ts", symbol: "makeGreeting", line: 14 });
    const answer = result.structuredContent as { locations: Array<{ file: string; line: number; column: number }> };
    expect(answer.locations.map((l) => `${l.file}:${l.line}:${l.column}`).sort()).toEqual(MAKE_GREETING_REFERENCES);
  });

  test("find_references pages: every page's snippets are the file's lines, total the server's count", async () => {
    type Page = {
      locations: Array<{ file: string; line: number; column: number; snippet: string }>;
      total: number;
      next_offset?: number;
    };
    const page = async (offset: number) =>
      (await call("find_references", { file: "src/greeter.ts", symbol: "makeGreeting", line: 14, limit: 3, offset }))
        .structuredContent as Page;
    const shown: Page["locations"] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const answer: Page = await page(offset);
      expect(answer.total).toBe(7);
      expect(answer.locations.length).toBeLessThanOrEqual(3);
      for (const l of answer.locations) {
        const line = readFileSync(join(fixture.dir, l.file), "utf8").split("\n")[l.line - 1]!;
        expect(l.snippet).toBe(line.trim());
      }
      shown.push(...answer.locations);
      offset = answer.next_offset;
    }
    expect(shown.map((l) => `${l.file}:${l.line}:${l.column}`).sort()).toEqual(MAKE_GREETING_REFERENCES);
  });

  test("find_references withholds references behind a symlink out of the workspace", async () => {
    // src/leak.ts is a symlink to the fixture's outside/secret.ts.
    writeFileSync(
      join(fixture.dir, "src/useLeak.ts"),
      'import { secret } from "./leak";\nexport const doubled = secret * 2;\n',
    );
    const result = await call("find_references", { file: "src/useLeak.ts", symbol: "secret", line: 2 });
    const answer = result.structuredContent as { locations: Array<{ file: string }>; total: number; note: string };
    expect(answer.locations.map((l) => l.file)).toEqual(["src/useLeak.ts", "src/useLeak.ts"]);
    expect(answer.total).toBe(2);
    expect(answer.note).toMatch(/withheld/);
    expect(JSON.stringify(result)).not.toContain(fixture.outside);
  });

  test("hover", async () => {
    const result = await call("hover", { file: "src/main.ts", symbol: "wave", line: 4 });
    expect(text(result)).toContain("const wave: string");
  });

  test("document_symbols", async () => {
    const result = await call("document_symbols", { file: "src/greeter.ts" });
    expect(text(result)).toMatch(/PoliteGreeter/);
    const json = JSON.stringify(result.structuredContent);
    expect(json).toContain('"name":"greet"');
  });

  test("workspace_symbols", async () => {
    const result = await call("workspace_symbols", { query: "PoliteGreeter" });
    expect(text(result)).toContain("src/greeter.ts:7:");
  });

  test("diagnostics report a type error at its line and column, and see an edit on disk", async () => {
    const result = await call("diagnostics", { files: ["src/broken.ts"], wait_ms: 10_000 });
    expect(text(result)).toMatch(/src\/broken\.ts:3:14 .*2322/);
    writeFileSync(join(fixture.dir, "src/broken.ts"), "export const flag: boolean = 1;\n");
    const after = await call("diagnostics", { files: ["src/broken.ts"], wait_ms: 10_000 });
    expect(text(after)).toMatch(/src\/broken\.ts:1:14 .*2322/);
    expect(text(after)).not.toMatch(/:3:14/);
  });
});

describe("bad input gets an isError result with a stable code; the server keeps serving", () => {
  test.each([
    ["a path with ..", "../outside/secret.ts", "OUTSIDE_WORKSPACE"],
    ["an absolute path", "/etc/passwd", "OUTSIDE_WORKSPACE"],
    ["a symlink pointing outside", "src/leak.ts", "OUTSIDE_WORKSPACE"],
    ["a missing file", "src/nope.ts", "NOT_FOUND"],
    ["an unknown extension", "README.txt", "NO_LANGUAGE_SERVER"],
  ])("%s", async (_name, file, code) => {
    const result = await call("hover", { file, line: 1, column: 1 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(code);
    expect(text(result)).not.toContain(fixture.outside);
    const healthy = await call("hover", { file: "src/main.ts", symbol: "greeter", line: 3 });
    expect(healthy.isError).toBeFalsy();
  });
});

test("Ctrl-C stops serve and leaves no language-server process behind", async () => {
  await call("hover", { file: "src/main.ts", symbol: "greeter", line: 3 });
  const children = descendantPids(serve.child.pid!);
  expect(children.length).toBeGreaterThan(0); // typescript-language-server and its tsserver
  const exit = await serve.stop();
  expect(exit.code).toBe(0);
  expect(children.filter(isRunning)).toEqual([]);
});
