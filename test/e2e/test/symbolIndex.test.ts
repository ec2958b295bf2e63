// search_symbols from the symbol index, whole system: `lspmesh serve` on a workspace shaped like
// honojs/hono (a solution tsconfig with referenced projects, an unreferenced benchmarks project,
// files in no project). Served cold, with no language server running, search_symbols finds the
// declaration of every top-level exported symbol that typescript-language-server's
// workspace/symbol finds once every project is loaded; and a saved file's symbols become findable.
// In `npm run test:faults`: `npm test` checks the same index against workspace/symbol in the
// runner's suite and search_symbols through gateways in `cluster.test.ts`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  descendantPids,
  type FixtureWorkspace,
  fixtureWorkspace,
  isFaultsTier,
  type ServeProcess,
  startServe,
  waitFor,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, test } from "vitest";

interface FoundSymbol {
  name: string;
  kind: string;
  exported?: boolean;
  source: string;
  location: { file: string; line: number; column: number; snippet: string };
}

interface Structured {
  partial: boolean;
  total: number;
  symbols: FoundSymbol[];
  text_matches: unknown[];
  workspaces: Array<{ workspace: string; outcome: string; source: string }>;
}
type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent: Structured };

let fixture: FixtureWorkspace;
let serve: ServeProcess;
let client: Client;

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-hono-shape");
  serve = await startServe(fixture.dir, ["--quiet"]);
  client = new Client({ name: "lspmesh-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
});

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  fixture?.[Symbol.dispose]();
});

const EXPORTED_DECLARATION =
  /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace|module)\s+([\w$]+)/;
const LETTERS = [..."abcdefghijklmnopqrstuvwxyz"];

test.runIf(isFaultsTier())(
  "cold, with no language server running, search_symbols finds every top-level exported declaration workspace/symbol finds",
  async () => {
    const complete = await waitFor(
      "the index of the workspace to be complete",
      async () => {
        const result = await call("search_symbols", { query: "toSSG" });
        return result.structuredContent?.partial === false && result;
      },
      { timeoutMs: 60_000 },
    );
    expect(complete.structuredContent.workspaces).toEqual([
      expect.objectContaining({ workspace: "default", outcome: "ok", source: "index" }),
    ]);
    expect(complete.structuredContent.symbols[0]).toMatchObject({
      name: "toSSG",
      kind: "constant",
      exported: true,
      location: { file: "src/helper/ssg/ssg.ts", line: 14, column: 14 },
    });
    // Every exported declaration the index holds: a one-letter query matches every name holding it.
    const indexed = new Set<string>();
    for (const letter of LETTERS) {
      const result = await call("search_symbols", { query: letter, exported: true, limit: 1000 });
      expect(result.structuredContent.partial).toBe(false);
      for (const symbol of result.structuredContent.symbols as FoundSymbol[])
        indexed.add(`${symbol.name} ${symbol.location.file}:${symbol.location.line}`);
    }
    // No language server was needed for any of it.
    expect(descendantPids(serve.child.pid!)).toEqual([]);

    // What the language server finds once the runner has loaded every project (workspace_symbols does).
    const declared = new Set<string>();
    for (const letter of LETTERS) {
      const result = await call("workspace_symbols", { query: letter, limit: 1000 });
      expect(result.structuredContent.partial, JSON.stringify(result.structuredContent)).toBe(false);
      for (const symbol of result.structuredContent.symbols as FoundSymbol[]) {
        if (EXPORTED_DECLARATION.exec(symbol.location.snippet)?.[1] !== symbol.name) continue;
        declared.add(`${symbol.name} ${symbol.location.file}:${symbol.location.line}`);
      }
    }
    const files = new Set([...declared].map((key) => key.split(" ")[1]!.split(":")[0]));
    for (const file of [
      "src/compose.ts",
      "src/compose.test.ts",
      "runtime-tests/node/index.test.ts",
      "benchmarks/routers/src/bench.mts",
    ])
      expect(files).toContain(file);
    expect(declared.size).toBeGreaterThan(30);
    expect([...declared].filter((key) => !indexed.has(key))).toEqual([]);
  },
  180_000,
);

test.runIf(isFaultsTier())(
  "a saved file's new symbol is findable; camel-case and filters narrow the search",
  async () => {
    writeFileSync(join(fixture.dir, "src/helper/ssg/plugins.ts"), "export const redirectPlugin = () => 'redirect';\n");
    const found = await waitFor("the saved symbol to be findable", async () => {
      const result = await call("search_symbols", { query: "redirectPlugin" });
      return result.structuredContent?.symbols?.[0]?.name === "redirectPlugin" && result;
    });
    expect(found.structuredContent.symbols[0]!.location.file).toBe("src/helper/ssg/plugins.ts");
    const camel = await call("search_symbols", { query: "fRC" });
    expect((camel.structuredContent.symbols as FoundSymbol[])[0]?.name).toBe("fetchRoutesContent");
    const classes = await call("search_symbols", { query: "Hono", kind: ["class"], path: "src/*.ts" });
    expect((classes.structuredContent.symbols as FoundSymbol[]).map((s) => `${s.name} ${s.location.file}`)).toEqual([
      "Hono src/hono.ts",
      "HonoBase src/hono-base.ts",
    ]);
  },
);
