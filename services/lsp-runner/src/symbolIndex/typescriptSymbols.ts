// Declarations of a TypeScript/JavaScript file from the TypeScript compiler's navigation tree:
// the tree tsserver answers textDocument/documentSymbol from (typescript-language-server turns it
// into DocumentSymbols the same way: aliases and anonymous items left out, same kinds). It needs
// the file's syntax only, never a project, so the index is complete whichever tsconfig projects a
// server would have loaded, and costs no language server.
import { createRequire } from "node:module";
import type { IndexedSymbol } from "@lspmesh/events";
import type ts from "typescript";
import { fromLspPosition } from "../lsp/session/positionEncoding.js";
import { snippetLine } from "./snippets.js";

/** Kind names as typescript-language-server maps tsserver's element kinds (unknown: variable). */
const KINDS: Record<string, string> = {
  "enum member": "constant",
  "JSX attribute": "property",
  "local class": "class",
  "local function": "function",
  "local var": "variable",
  "type parameter": "variable",
  alias: "variable",
  class: "class",
  const: "constant",
  constructor: "constructor",
  enum: "enum",
  field: "field",
  function: "function",
  getter: "method",
  interface: "interface",
  let: "variable",
  method: "method",
  module: "module",
  parameter: "variable",
  property: "property",
  setter: "method",
  var: "variable",
};

const SCRIPT_KINDS: Record<string, "TS" | "TSX" | "JS" | "JSX"> = {
  ".ts": "TS",
  ".mts": "TS",
  ".cts": "TS",
  ".tsx": "TSX",
  ".js": "JS",
  ".mjs": "JS",
  ".cjs": "JS",
  ".jsx": "JSX",
};

/** tsserver's element kinds compared at run time (ts.ScriptElementKind.alias, .moduleElement). */
const ALIAS = "alias" as ts.ScriptElementKind;
const MODULE = "module" as ts.ScriptElementKind;

let compiler: typeof ts | undefined;

/**
 * The TypeScript compiler, loaded on first use with require: every process importing the runner
 * (the CLI's `--version`, a usage error, the gateway's tests) would otherwise pay about 1.5 s of CPU
 * for Node to scan and load its 9 MB as an ES module import.
 */
function typescript(): typeof ts {
  compiler ??= createRequire(import.meta.url)("typescript") as typeof ts;
  return compiler;
}

/** Extensions this source reads (lower case, with the dot). */
export const TYPESCRIPT_SYNTAX_EXTENSIONS: ReadonlySet<string> = new Set(Object.keys(SCRIPT_KINDS));

/**
 * One language service over a single in-memory file, reused for every file: the navigation tree is
 * a syntactic query, so no program, library or module resolution is ever built.
 */
export class TypescriptSyntaxSource {
  private fileName = "/index.ts";
  private text = "";
  private version = 0;
  private readonly service: ts.LanguageService;

  constructor() {
    const ts = typescript();
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => [this.fileName],
      getScriptVersion: () => String(this.version),
      getScriptSnapshot: (name) => (name === this.fileName ? ts.ScriptSnapshot.fromString(this.text) : undefined),
      getScriptKind: (name) => ts.ScriptKind[SCRIPT_KINDS[extensionOf(name)] ?? "TS"],
      getCurrentDirectory: () => "/",
      getCompilationSettings: () => ({ noLib: true, noResolve: true, allowJs: true, types: [] }),
      getDefaultLibFileName: () => "/lib.d.ts",
      fileExists: (name) => name === this.fileName,
      readFile: (name) => (name === this.fileName ? this.text : undefined),
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry(), ts.LanguageServiceMode.Syntactic);
  }

  /** Declarations of `text` (the content of workspace file `file`), in source order, nested ones flattened. */
  symbols(path: string, text: string, lines: readonly string[]): IndexedSymbol[] {
    this.fileName = `/${path}`;
    this.text = text;
    this.version++;
    const tree = this.service.getNavigationTree(this.fileName);
    const exportedNames = exportListNames(text);
    const symbols: IndexedSymbol[] = [];
    const starts = lineStarts(text);
    const position = (offset: number) => {
      const line = lineOf(starts, offset);
      return fromLspPosition(lines, { line, character: offset - starts[line]! }, "utf-16");
    };
    /** `inNamespace`: the parent is a namespace or module, where `export` makes a member visible outside. */
    const visit = (item: ts.NavigationTree, container: string | undefined, topLevel: boolean, inNamespace: boolean) => {
      const named = item.kind !== ALIAS && included(item.text);
      const renamedExport = item.kind === ALIAS && topLevel && exportedNames.renames.has(item.text);
      if (named || renamedExport) {
        const modifiers = item.kindModifiers.split(",");
        const exported = topLevel
          ? renamedExport || modifiers.includes("export") || exportedNames.names.has(item.text)
          : inNamespace && modifiers.includes("export");
        // One entry per declaration, as documentSymbol gives one per span (overloads, merged
        // interfaces and namespaces): the name span of the first, the name found in the others.
        for (const span of item.spans) {
          const nameStart = nameOffset(text, item, span);
          const start = position(nameStart);
          const end = position(nameStart + (item.nameSpan?.length ?? item.text.length));
          symbols.push({
            name: item.text,
            kind: KINDS[item.kind] ?? "variable",
            ...(container ? { container } : {}),
            line: start.line,
            column: start.column,
            endLine: end.line,
            endColumn: end.column,
            exported,
            snippet: snippetLine(lines, start.line),
          });
        }
      }
      // Like documentSymbol: an item's children are listed (a function's locals included).
      const namespace = item.kind === MODULE;
      for (const child of item.childItems ?? []) visit(child, named ? item.text : container, false, namespace);
    };
    for (const child of tree.childItems ?? []) visit(child, undefined, true, false);
    return symbols;
  }

  /** Drops the cached syntax tree. Idempotent. */
  close(): void {
    this.service.dispose();
  }
}

/**
 * Where an item's name starts within one of its spans: its name span when inside, else the name
 * assigned just before the span (`Signal.prototype.subscribe = function (fn) {…}`: the navigation
 * tree's span is the function, its name the property), else the name's first occurrence.
 */
function nameOffset(text: string, item: ts.NavigationTree, span: ts.TextSpan): number {
  const { nameSpan } = item;
  if (nameSpan && nameSpan.start >= span.start && nameSpan.start < span.start + span.length) return nameSpan.start;
  const assigned = assignedName(text, item.text, span.start);
  if (assigned !== undefined) return assigned;
  const found = text.indexOf(item.text, span.start);
  return found >= 0 && found < span.start + span.length ? found : span.start;
}

/** The offset of `name` when the code before `start` on its line ends with `name =` (`x.name = `, `name = `). */
function assignedName(text: string, name: string, start: number): number | undefined {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const before = text.slice(lineStart, start);
  const match = /(^|[^\w$])([\w$]+)\s*=\s*$/.exec(before);
  if (!match || match[2] !== name) return undefined;
  return lineStart + match.index + match[1]!.length;
}

/** typescript-language-server leaves out anonymous items. */
function included(name: string): boolean {
  return name !== "" && name !== "<function>" && name !== "<class>";
}

/** UTF-16 offsets where each line starts; lines end at \r\n, \n or \r (as splitLines splits them). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 13 && text.charCodeAt(at + 1) === 10) at++;
    if (code === 13 || code === 10) starts.push(at + 1);
  }
  return starts;
}

/** 0-based line holding a UTF-16 offset (binary search over lineStarts). */
function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot).toLowerCase();
}

/**
 * Names exported by a local export list (`export { a, b as c }` without `from`) or
 * `export default a;`: the navigation tree marks only declarations carrying `export` themselves.
 * `renames` are the new names of `x as y` (re-exports with `from` included): declarations of their own.
 */
function exportListNames(text: string): { names: Set<string>; renames: Set<string> } {
  const names = new Set<string>();
  const renames = new Set<string>();
  for (const match of text.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}(\s*from\b)?/g)) {
    for (const part of match[1]!.split(",")) {
      const [local, , alias] = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+/);
      if (!local) continue;
      if (!match[2]) names.add(local);
      if (alias && alias !== local) renames.add(alias);
    }
  }
  for (const match of text.matchAll(/\bexport\s+default\s+([A-Za-z_$][\w$]*)\s*;/g)) names.add(match[1]!);
  return { names, renames };
}
