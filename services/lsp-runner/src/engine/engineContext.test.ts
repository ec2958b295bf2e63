import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Location as LspLocation } from "vscode-languageserver-protocol";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { WorkspacePaths } from "../workspace/workspacePaths.js";
import { type DocumentContext, EngineContext, type EngineOptions } from "./engineContext.js";

let base: string;
let context: DocumentContext;
/** Files whose lines were asked for (a read looks for an open document first): only the page's. */
let read: string[];
const engine = new EngineContext({} as EngineOptions);

const A = ["const a = 1;", "  use(a);  ", "use(a, a);"];
const B = ["import { a } from './a';", "a;"];

beforeEach(async () => {
  base = mkdtempSync(join(tmpdir(), "lspmesh-pages-"));
  mkdirSync(join(base, "ws/src"), { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "ws/src/a.ts"), `${A.join("\n")}\n`);
  writeFileSync(join(base, "ws/src/b.ts"), `${B.join("\n")}\n`);
  writeFileSync(join(base, "outside/secret.ts"), "export const a = 42;\n");
  symlinkSync(join(base, "outside/secret.ts"), join(base, "ws/src/leak.ts"));
  const paths = await WorkspacePaths.open(join(base, "ws"));
  read = [];
  const document = (uri: string) => void read.push(uri.slice(pathToFileURL(paths.root).href.length + 1));
  const session = { document, encoding: "utf-16", contentEpoch: 0, root: paths.root };
  context = { paths, session: session as unknown as LanguageSession } as DocumentContext;
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A server's location (0-based line and character). */
function at(file: string, line: number, character: number): LspLocation {
  const uri = pathToFileURL(join(context.paths.root, file)).href;
  return { uri, range: { start: { line, character }, end: { line, character: character + 1 } } };
}

/** What the server answered, in its order: 4 in a.ts, 1 through the symlink out, 2 in b.ts, 1 not a file. */
const server = (): LspLocation[] => [
  at("src/a.ts", 0, 6),
  at("src/a.ts", 1, 6),
  at("src/a.ts", 2, 4),
  at("src/a.ts", 2, 7),
  at("src/leak.ts", 0, 13),
  at("src/b.ts", 0, 9),
  at("src/b.ts", 1, 0),
  { uri: "untitled:Untitled-1", range: at("src/a.ts", 0, 0).range },
];

describe("EngineContext.convertLocationPage", () => {
  it("counts every location of the workspace but converts only the page's, with the file's lines", async () => {
    const page = await engine.convertLocationPage(context, server(), 2, 3);
    expect(page.total).toBe(6);
    expect(page.omitted).toBe(2);
    expect(page.locations.map((l) => [l.file, l.range.start.line, l.range.start.column, l.snippet])).toEqual([
      ["src/a.ts", 3, 5, A[2]],
      ["src/a.ts", 3, 8, A[2]],
      ["src/b.ts", 1, 10, B[0]],
    ]);
    // Only a.ts and b.ts were read; the symlink out never was.
    expect(read).toEqual(["src/a.ts", "src/b.ts"]);
  });

  it("a page of the first file's locations reads no other file", async () => {
    const page = await engine.convertLocationPage(context, server(), 0, 2);
    expect(page.locations.map((l) => l.snippet)).toEqual([A[0], A[1]!.trim()]);
    expect(page.total).toBe(6);
    expect(read).toEqual(["src/a.ts"]);
  });

  it("limit 0 converts all of them (as convertLocations), a page past the end none", async () => {
    const all = await engine.convertLocations(context, server());
    expect(all.locations).toHaveLength(6);
    expect(all.omitted).toBe(2);
    const pages = [
      ...(await engine.convertLocationPage(context, server(), 0, 4)).locations,
      ...(await engine.convertLocationPage(context, server(), 4, 4)).locations,
    ];
    expect(pages).toEqual(all.locations);
    const past = await engine.convertLocationPage(context, server(), 6, 4);
    expect(past).toEqual({ locations: [], total: 6, omitted: 2 });
  });
});
