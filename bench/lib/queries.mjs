// Golden queries: positions in a corpus where an identifier has a definition, the same questions
// asked of every path a benchmark compares (the language server direct, lspmesh serve, a cluster).
// Found syntactically with the TypeScript compiler API (no type check, so it is fast and does not
// depend on the project building): usages of names a file declares at its top level or imports
// from a relative module — those resolve to a declaration in the workspace, never to a package
// the corpus may not have installed. Spread across files, in an order fixed by a seed.
// Also here: each query as tool arguments and as LSP params, and answers of either side reduced to
// what can be compared (how many locations, in which files).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const SOURCE_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts"];
/** Larger files are generated or vendored, not code agents ask about (bytes). */
const MAX_FILE_BYTES = 512 * 1024;

/** The TypeScript source files under `folder` (workspace-relative, POSIX, sorted), without declarations, dot folders or node_modules. */
export function sourceFiles(folder) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.isFile() &&
        SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) &&
        !/\.d\.[mc]?ts$/.test(entry.name)
      )
        files.push(relative(folder, path).split(sep).join("/"));
    }
  };
  walk(folder);
  return files.sort();
}

/** xorshift32: the same seed gives the same queries on every machine. */
export function seededRandom(seed) {
  let state = Math.imul(seed, 2654435761) >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function shuffle(list, random) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/**
 * The order callers ask `pairs` (query, operation) pairs in, as indexes 0 … pairs-1: every pair
 * once per cycle, shuffled by `seed` so that the calls in flight at any moment mix the operations.
 */
export function callOrder(pairs, seed) {
  return shuffle(
    Array.from({ length: pairs }, (_, pair) => pair),
    seededRandom(seed),
  );
}

/**
 * Hands out the pairs of `order` to concurrent callers, cycle after cycle, until `durationMs` is
 * over and then until the cycle in progress is complete, so that every target measured with it
 * answers whole cycles of the same calls. (Each caller walking the pairs from its own start until
 * a deadline made the mix depend on speed: a target that got further answered a different share of
 * references, which cost the server several times a definition — up to 9 % more server work per
 * call for the slower target of a 10 s round.) next() is the next pair, or undefined when done.
 */
export function wholeCycles(order, durationMs) {
  const deadline = Date.now() + durationMs;
  let taken = 0;
  let end = Number.POSITIVE_INFINITY; // set at the deadline: the end of the cycle in progress
  return {
    next() {
      if (end === Number.POSITIVE_INFINITY && Date.now() >= deadline)
        end = Math.ceil(taken / order.length) * order.length;
      return taken < end ? order[taken++ % order.length] : undefined;
    },
  };
}

/** Names a file declares at its top level or imports from a relative module ("./x", "../y"). */
function definedNames(sourceFile) {
  const names = new Set();
  const addBinding = (name) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements ?? []) if (ts.isBindingElement(element)) addBinding(element.name);
  };
  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement)) {
      const from = statement.moduleSpecifier;
      const clause = statement.importClause;
      if (!ts.isStringLiteral(from) || !from.text.startsWith(".") || !clause) continue;
      if (clause.name) names.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) names.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) addBinding(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/** An identifier that names something declared elsewhere (not a declaration's own name, not a member after a dot). */
function isUsage(node) {
  const parent = node.parent;
  if (!parent) return false;
  if (parent.name === node) return false; // declarations, property assignments, shorthand properties
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  for (let up = parent; up; up = up.parent) {
    if (ts.isImportDeclaration(up) || ts.isExportDeclaration(up) || ts.isImportEqualsDeclaration(up)) return false;
  }
  return true;
}

/**
 * N golden queries in `folder`: { file, name, line, column (1-based, code points), position
 * ({ line, character }: LSP, 0-based, UTF-16) }. At most one per name and file; files take turns,
 * in an order fixed by `seed`.
 */
export function goldenQueries(folder, { count = 40, seed = 1 } = {}) {
  const random = seededRandom(seed);
  const perFile = [];
  for (const file of sourceFiles(folder)) {
    const text = readFileSync(join(folder, file), "utf8");
    if (text.length > MAX_FILE_BYTES) continue;
    const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    const names = definedNames(sourceFile);
    if (names.size === 0) continue;
    const firstUsage = new Map(); // name → its first usage in this file
    const visit = (node) => {
      if (ts.isIdentifier(node) && names.has(node.text) && !firstUsage.has(node.text) && isUsage(node))
        firstUsage.set(node.text, node);
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    const candidates = [...firstUsage.values()].map((node) => {
      const start = node.getStart(sourceFile);
      const { line, character } = sourceFile.getLineAndCharacterOfPosition(start);
      const lineText = text.slice(sourceFile.getLineStarts()[line], start);
      return {
        file,
        name: node.text,
        line: line + 1,
        column: [...lineText].length + 1,
        position: { line, character },
      };
    });
    if (candidates.length > 0) perFile.push(shuffle(candidates, random));
  }
  shuffle(perFile, random);
  const queries = [];
  for (let round = 0; queries.length < count; round++) {
    let added = false;
    for (const candidates of perFile) {
      if (round < candidates.length && queries.length < count) {
        queries.push(candidates[round]);
        added = true;
      }
    }
    if (!added) break; // the corpus has fewer candidates than asked for
  }
  return queries;
}

// ---------------------------------------------------------------------------------------------
// The operations every path is asked, and their answers reduced to comparable facts.

/** Most references an answer may carry: all of them, so both sides list the same locations. */
const REFERENCES_LIMIT = 5000;

export const OPERATIONS = {
  find_definition: {
    lspMethod: "textDocument/definition",
    lspParams: (uri, query) => ({ textDocument: { uri }, position: query.position }),
    toolArguments: (query) => ({ file: query.file, line: query.line, column: query.column }),
  },
  find_references: {
    lspMethod: "textDocument/references",
    lspParams: (uri, query) => ({
      textDocument: { uri },
      position: query.position,
      context: { includeDeclaration: true },
    }),
    toolArguments: (query) => ({
      file: query.file,
      line: query.line,
      column: query.column,
      include_declaration: true,
      limit: REFERENCES_LIMIT,
    }),
  },
  hover: {
    lspMethod: "textDocument/hover",
    lspParams: (uri, query) => ({ textDocument: { uri }, position: query.position }),
    toolArguments: (query) => ({ file: query.file, line: query.line, column: query.column }),
  },
};

/** A file as both sides can name it: workspace-relative, or "external:<name>" for libraries outside it. */
function comparableFile(path, folder) {
  const inside = relative(folder, path);
  if (!inside.startsWith("..") && !inside.startsWith(sep)) return inside.split(sep).join("/");
  return `external:${path.split(/[\\/]/).pop()}`;
}

/** What a language server answered, as { count, files } (hover: count 1 when it has contents). */
export function lspAnswerFacts(operation, result, folder) {
  if (operation === "hover") {
    const contents = result?.contents;
    const text = Array.isArray(contents)
      ? contents.map((part) => (typeof part === "string" ? part : part.value)).join("")
      : typeof contents === "string"
        ? contents
        : (contents?.value ?? "");
    return { count: text.trim() ? 1 : 0, files: [] };
  }
  const list = result ? (Array.isArray(result) ? result : [result]) : [];
  const files = list.map((location) => comparableFile(fileURLToPath(location.targetUri ?? location.uri), folder));
  return { count: list.length, files: [...new Set(files)].sort() };
}

/** What an lspmesh tool answered, as { count, files, partial, error } (same shape as lspAnswerFacts). */
export function toolAnswerFacts(operation, result) {
  const text = (result.content ?? []).map((part) => part.text ?? "").join("\n");
  if (result.isError) return { count: 0, files: [], partial: false, error: text.slice(0, 300) };
  const answer = result.structuredContent ?? {};
  const partial = answer.partial === true;
  if (operation === "hover") return { count: String(answer.contents ?? "").trim() ? 1 : 0, files: [], partial };
  const locations = answer.locations ?? [];
  const files = locations.map((location) =>
    location.external ? `external:${String(location.file).split("/").pop()}` : location.file,
  );
  return { count: answer.total ?? locations.length, files: [...new Set(files)].sort(), partial };
}

/** Whether two answers agree: the same number of locations in the same files. */
export function sameFacts(a, b) {
  return a.count === b.count && a.files.join("\n") === b.files.join("\n");
}

/** The file URI of a query's file in `folder`. */
export function fileUri(folder, file) {
  return pathToFileURL(join(folder, file)).href;
}
