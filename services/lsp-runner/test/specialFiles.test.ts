// FIFOs where files are expected: a workspace may hold (or swap in after any stat) a named pipe
// with a source file's name or as its tsconfig. Reading one would hold a thread of libuv's pool
// until someone writes to it (the issue: four calls stalled every other tenant's). Files are
// opened without blocking and checked after opening; the pipe is refused, never read.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { readRegularFile, readRegularFileSync } from "../src/workspace/metadata.js";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { failure } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let env: FixtureRunner;

beforeAll(async () => {
  env = await startFixtureRunner({
    files: {
      "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, lib: ["ES2022"], types: [] } }),
      "src/main.ts": "export const plain = 1;\n",
      "src/later.ts": "export const laterOne = 2;\n",
    },
    languages: new LanguageRegistry([typescriptLanguage()]),
    symbolIndex: { workspaces: [ws] },
    watchDebounceMs: 20,
  });
  // A pipe named like a source file, made after the runner listed the workspace.
  const made = spawnSync("mkfifo", [join(env.dir, "src/pipe.ts")]);
  expect(made.status, String(made.stderr)).toBe(0);
});

afterAll(() => env?.close());

test("a FIFO is refused at once, never read (async and sync)", async () => {
  const pipe = join(env.dir, "src/pipe.ts");
  await expect(readRegularFile(pipe)).rejects.toMatchObject({ code: "ENOTREG" });
  expect(() => readRegularFileSync(pipe)).toThrow(expect.objectContaining({ code: "ENOTREG" }));
  expect((await readRegularFile(join(env.dir, "src/main.ts"))).toString()).toBe("export const plain = 1;\n");
});

test("a FIFO named like a source file: the index goes on without it, the tools say it is not a file", async () => {
  const { runner, client } = env;
  await runner.symbolIndexer!.settled(ws);
  const files = [...(await runner.events.symbolIndex.read(ws.tenant, ws.workspace)).files.keys()].sort();
  expect(files).toEqual(["src/later.ts", "src/main.ts"]);
  const refused = await failure(client.documentSymbols({ workspace: ws, file: "src/pipe.ts" }, { timeoutMs: 10_000 }));
  expect([refused.lspmeshCode, refused.details]).toEqual([
    "INVALID_ARGUMENT",
    "'src/pipe.ts' is not a regular file; name a source file",
  ]);
  // The runner still answers.
  const outline = await client.documentSymbols({ workspace: ws, file: "src/main.ts" }, { timeoutMs: 30_000 });
  expect(outline.symbols.map((symbol) => symbol.name)).toEqual(["plain"]);
});
