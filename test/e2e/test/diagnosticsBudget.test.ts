// Whole-workspace diagnostics sized for a model, on a generated workspace of 230 TypeScript files
// through `lspmesh serve` and the official MCP client: the text stays under its budget whatever
// the limit, the counts are exactly what the files contain, clean files are counted and never
// listed, the file cap is reported, and paging reaches every diagnostic once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServe } from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";

const FILES = 230;
/** docs/tools.md: the text of one diagnostics answer stays under this many characters. */
const TEXT_BUDGET = 16_000;
const CHECKED = 200;

interface Answer {
  text: string;
  structured: {
    partial: boolean;
    counts: Record<string, number>;
    total: number;
    next_offset?: number;
    files_checked: number;
    files_with_problems: number;
    files_clean: number;
    not_fresh_count: number;
    unchecked_files: number;
    files: Array<{ file: string; diagnostics: Array<{ line: number; code?: string }> }>;
  };
}

let dir: string;
const name = (index: number) => `src/f${String(index).padStart(3, "0")}.ts`;
/** Every third file has three type errors (TS2322); the rest are clean. */
const broken = (index: number) => index % 3 === 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lspmesh-budget-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    '{ "compilerOptions": { "strict": true, "noEmit": true, "lib": ["ES2022"], "types": [] }, "include": ["src"] }\n',
  );
  for (let index = 0; index < FILES; index++) {
    const body = broken(index)
      ? `export const a${index}: number = "one";\nexport const b${index}: number = "two";\nexport const c${index}: boolean = "three";\n`
      : `export const ok${index} = ${index};\n`;
    writeFileSync(join(dir, name(index)), body);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("under the budget, counts exact, cap reported, every diagnostic reachable by paging", async () => {
  await using serve = await startServe(dir);
  const client = new Client({ name: "e2e-budget", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  const call = async (args: Record<string, unknown>): Promise<Answer> => {
    const result = await client.callTool({ name: "diagnostics", arguments: args }, { timeout: 120_000 });
    expect(result.isError).toBeFalsy();
    const text = (result.content as Array<{ text: string }>).map((part) => part.text).join("\n");
    return { text, structured: result.structuredContent as Answer["structured"] };
  };
  try {
    // The first 200 files by name are checked; the last 30 are counted as left out.
    const checked = Array.from({ length: CHECKED }, (_, index) => index);
    const brokenFiles = checked.filter(broken).length;
    const first = await call({ wait_ms: 60_000 });
    expect(first.structured).toMatchObject({
      counts: { error: brokenFiles * 3, warning: 0 },
      total: brokenFiles * 3,
      files_checked: CHECKED,
      files_with_problems: brokenFiles,
      files_clean: CHECKED - brokenFiles,
      not_fresh_count: 0,
      unchecked_files: FILES - CHECKED,
      next_offset: 50,
    });
    expect(first.text.length).toBeLessThan(TEXT_BUDGET);
    expect(first.text).toContain(
      `${brokenFiles * 3} errors in ${brokenFiles} files; ${CHECKED - brokenFiles} files clean`,
    );
    expect(first.text).toContain(`${FILES - CHECKED} more source file(s) not checked`);
    expect(first.text).not.toContain(name(1)); // a clean file is never listed

    // The largest limit still keeps the text under the budget; paging collects each once.
    const seen = new Set<string>();
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const page: Answer = await call({ wait_ms: 0, limit: 500, offset });
      expect(page.text.length).toBeLessThan(TEXT_BUDGET);
      for (const file of page.structured.files) {
        for (const d of file.diagnostics) seen.add(`${file.file}:${d.line}:${d.code}`);
      }
      offset = page.structured.next_offset;
      pages++;
    }
    expect(seen.size).toBe(brokenFiles * 3);
    expect(pages, "the budget, not the limit of 500, ended the first page").toBeGreaterThan(1);
  } finally {
    await client.close();
  }
});
