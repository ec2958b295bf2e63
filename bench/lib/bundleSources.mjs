// Where a profiled function of a bundle came from. `lspmesh gateway`, `runner` and `serve` run
// from the CLI's bundle (apps/cli/dist/bundle, esbuild with source maps), so a CPU profile names
// chunk files; each chunk's .map gives back the source file (ours, or a package's under
// node_modules) that the profile's owners are counted by.
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Source maps by bundle file; null when a file has none. */
const maps = new Map();

function sourceMapOf(file) {
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : null);
  }
  return maps.get(file);
}

/**
 * The absolute path of the source file that a profile's call frame (file URL, zero-based line and
 * column) was bundled from; the URL's own path when it is not a bundle with a source map.
 */
export function originalSourceOf(url, lineNumber, columnNumber) {
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (!file.includes("/dist/bundle/")) return file;
  const entry = sourceMapOf(file)?.findEntry(lineNumber, columnNumber);
  if (!entry?.originalSource) return file;
  return entry.originalSource.startsWith("file://")
    ? fileURLToPath(entry.originalSource)
    : resolve(dirname(file), entry.originalSource);
}
