// Which workspace files import a given file: the files whose diagnostics an edit of it may change
// beyond its own. Read from import statements, not from a server (servers have no "who imports
// me" request): TypeScript/JavaScript relative specifiers (import, export … from, import(),
// require) resolved with the usual extension and index rules, and Python modules (absolute by any
// suffix of the file's module path, and relative imports), and C/C++ #include/#import (the included
// path relative to the includer, or any trailing part of the header's path: include directories
// vary). Path aliases and package names are not followed; the answer says how many importers were
// found beyond the cap. Importers of a package's __init__.py or a folder's index module count as
// importers of what it imports. Other languages' imports are not read (readsImportsOf).
import { extname, join, posix } from "node:path";
import { readRegularFileBeneath } from "../workspace/metadata.js";
import { listSourceFiles } from "../workspace/sourceFiles.js";

/** Importers checked at most (default 30); the rest are counted. */
export const IMPORTERS_CAP = 30;
/** Source files scanned for imports at most (default 20 000), and bytes read of each (256 KiB). */
const FILES_SCANNED = 20_000;
const BYTES_READ = 256 * 1024;

const SCRIPT_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+|^\s*export\s+\*\s+from\s*)(['"])([^'"\n]+)\1/gm;
const C_FAMILY_EXTENSIONS = new Set([
  ".c",
  ".h",
  ".cc",
  ".cpp",
  ".cxx",
  ".c++",
  ".hh",
  ".hpp",
  ".hxx",
  ".h++",
  ".inl",
  ".ipp",
  ".tpp",
  ".m",
  ".mm",
]);
const INCLUDE = /^[ \t]*#[ \t]*(?:include|import)[ \t]*[<"]([^>"\n]+)[>"]/gm;
// One statement: `from M import a, b` (a parenthesised list may span lines), `import a.b as c, d`.
const PYTHON_IMPORT = /^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))/gm;

export interface Importers {
  files: string[];
  /** Importers found beyond IMPORTERS_CAP. */
  notChecked: number;
  /** The scan stopped at its file cap: there may be more. */
  scanTruncated: boolean;
}

/** How many layers of re-exporting files (a package's __init__.py, an index.ts) are followed (3). */
const RE_EXPORT_LAYERS = 3;

/**
 * Files (of the given extensions, other than `edited`) importing any of `edited`, directly first,
 * then through the files that re-export them: a package's `__init__.py` (`import httpx` reaches
 * httpx/_models.py through `from ._models import *`) or a folder's `index` module.
 */
export async function findImporters(
  root: string,
  edited: readonly string[],
  extensions: ReadonlySet<string>,
): Promise<Importers> {
  const listed = await listSourceFiles(root, extensions, FILES_SCANNED);
  let targets = new Set(edited);
  const found: string[] = [];
  const seen = new Set<string>();
  for (let layer = 0; layer < RE_EXPORT_LAYERS; layer++) {
    const reExporters: string[] = [];
    for (const file of listed.files) {
      if (targets.has(file) || seen.has(file) || edited.includes(file)) continue;
      const read = await readRegularFileBeneath(root, join(root, file), BYTES_READ).catch(() => undefined);
      const text = read?.bytes?.toString("utf8");
      if (text === undefined || !importsAny(file, text, targets)) continue;
      found.push(file);
      seen.add(file);
      if (reExports(file)) reExporters.push(file);
    }
    if (reExporters.length === 0) break;
    targets = new Set(reExporters);
  }
  return {
    files: found.slice(0, IMPORTERS_CAP),
    notChecked: Math.max(0, found.length - IMPORTERS_CAP),
    scanTruncated: listed.truncated,
  };
}

/** A file whose importers reach what it imports: a Python package's __init__.py, a folder's index module. */
function reExports(file: string): boolean {
  const name = posix.basename(file);
  return name === "__init__.py" || SCRIPT_EXTENSIONS.some((extension) => name === `index${extension}`);
}

/** Whether the imports of files like `file` are read here (TypeScript/JavaScript, Python, C/C++). */
export function readsImportsOf(file: string): boolean {
  const extension = extname(file).toLowerCase();
  return extension === ".py" || SCRIPT_EXTENSIONS.includes(extension) || C_FAMILY_EXTENSIONS.has(extension);
}

/** Does `text` (the content of `file`) import one of `targets` (workspace-relative paths)? */
export function importsAny(file: string, text: string, targets: ReadonlySet<string>): boolean {
  const extension = extname(file).toLowerCase();
  if (extension === ".py") return pythonImportsAny(file, text, targets);
  if (C_FAMILY_EXTENSIONS.has(extension)) return includesAny(file, text, targets);
  return scriptImportsAny(file, text, targets);
}

/** `#include "x.h"` / `<dir/x.h>`: beside the includer, or a trailing part of a target's path. */
function includesAny(file: string, text: string, targets: ReadonlySet<string>): boolean {
  for (const match of text.matchAll(INCLUDE)) {
    const included = posix.normalize(match[1]!.trim());
    if (targets.has(posix.normalize(posix.join(posix.dirname(file), included)))) return true;
    for (const target of targets) if (target === included || target.endsWith(`/${included}`)) return true;
  }
  return false;
}

function scriptImportsAny(file: string, text: string, targets: ReadonlySet<string>): boolean {
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[2]!;
    if (!specifier.startsWith(".")) continue;
    const base = posix.normalize(posix.join(posix.dirname(file), specifier));
    if (scriptCandidates(base).some((candidate) => targets.has(candidate))) return true;
  }
  return false;
}

/** What a relative specifier may name: itself, with an extension, an index file, or .js written for .ts. */
function scriptCandidates(base: string): string[] {
  const stem = base.replace(/\.(m|c)?js$/, "");
  return [
    base,
    ...SCRIPT_EXTENSIONS.map((extension) => `${stem}${extension}`),
    ...SCRIPT_EXTENSIONS.map((extension) => `${base}/index${extension}`),
  ];
}

function pythonImportsAny(file: string, text: string, targets: ReadonlySet<string>): boolean {
  const modules = [...targets].filter((target) => target.endsWith(".py")).map(pythonModuleNames);
  if (modules.length === 0) return false;
  const packageParts = posix
    .dirname(file)
    .split("/")
    .filter((part) => part !== "." && part !== "");
  for (const match of text.matchAll(PYTHON_IMPORT)) {
    const imported: string[] = [];
    if (match[1] !== undefined) {
      const from = absoluteModule(match[1], packageParts);
      imported.push(
        from,
        ...match[2]!
          .split(/[\s,()]+/)
          .filter((name) => /^\w+$/.test(name))
          .map((name) => `${from}.${name}`.replace(/^\./, "")),
      );
    } else {
      imported.push(...match[3]!.split(",").map((name) => name.trim().split(/\s+as\s+/)[0]!));
    }
    if (modules.some((names) => imported.some((name) => names.has(name)))) return true;
  }
  return false;
}

/** `from .x import` inside pkg/sub → "pkg.sub.x"; absolute names unchanged. */
function absoluteModule(name: string, packageParts: readonly string[]): string {
  const dots = /^\.*/.exec(name)![0].length;
  if (dots === 0) return name;
  const base = packageParts.slice(0, Math.max(0, packageParts.length - (dots - 1)));
  return [...base, name.slice(dots)].filter((part) => part !== "").join(".");
}

/** "src/pkg/mod.py" → {"src.pkg.mod", "pkg.mod", "mod"} (import roots vary); packages by __init__.py. */
function pythonModuleNames(target: string): Set<string> {
  const parts = target.replace(/\.py$/, "").split("/");
  if (parts.at(-1) === "__init__") parts.pop();
  const names = new Set<string>();
  for (let i = 0; i < parts.length; i++) names.add(parts.slice(i).join("."));
  return names;
}
