// Readiness for servers that send no progress (pyright): they answer at once, from whatever part of
// the workspace they have analysed so far, so a cold server's first workspace symbols come back
// empty and its first references short. The probe takes a name declared in one of the workspace's
// files and asks `workspace/symbol` for it until the server finds it; until then the session counts
// as indexing, so answers wait for it (a bounded time) or say they may be incomplete.
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { WorkspaceSymbolRequest } from "vscode-languageserver-protocol";
import { readRegularFile } from "../../workspace/metadata.js";
import { listSourceFiles } from "../../workspace/sourceFiles.js";
import { outsidePyrightInclude } from "../languages/pyrightInclude.js";

/** How long the probe keeps asking before the server counts as ready anyway, in ms (default 60 000). */
export const DEFAULT_READINESS_TIMEOUT_MS = 60_000;
/** Pause between two probes, in ms. */
const PROBE_INTERVAL_MS = 250;
/** Files read while looking for a declared name. */
const FILES_READ = 50;
/** Files listed to find those pyright includes among (its `include` may leave the first ones out). */
const FILES_LISTED = 5_000;

/** A declaration keyword followed by the declared name (Python, and most languages alike). */
const DECLARATION =
  /^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?(?:def|class|function|func|fn|struct|interface|enum)[ \t]+([A-Za-z][A-Za-z0-9_]{2,})/m;

/**
 * A name declared in one of the workspace's files of these extensions; undefined when none is found.
 * With pyright's configuration, only files it includes: it never lists the others' symbols, and a
 * name from tests/ outside `include` kept the probe asking until its timeout.
 */
export async function declaredName(
  root: string,
  extensions: readonly string[],
  includeConfig?: "pyright" | "go",
): Promise<string | undefined> {
  const pyright = includeConfig === "pyright";
  const { files: listed } = await listSourceFiles(root, new Set(extensions), pyright ? FILES_LISTED : FILES_READ);
  const leftOut = new Set(pyright ? ((await outsidePyrightInclude(root, listed))?.outside ?? []) : []);
  const files = listed.filter((file) => !leftOut.has(file)).slice(0, FILES_READ);
  for (const file of files) {
    const text = await readRegularFile(join(root, file)).then(
      (bytes) => bytes.toString("utf8"),
      () => "",
    );
    const name = DECLARATION.exec(text.slice(0, 65_536))?.[1];
    if (name) return name;
  }
  return undefined;
}

export interface ProbeTarget {
  request(type: typeof WorkspaceSymbolRequest.type, params: { query: string }): Promise<unknown>;
  /** False once the session is closed or failed: the probe stops. */
  isAlive(): boolean;
}

/** Resolves once the server finds `name` among the workspace symbols, or the time is up (false). */
export async function probeUntilFound(target: ProbeTarget, name: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (target.isAlive() && Date.now() < deadline) {
    const symbols = await target.request(WorkspaceSymbolRequest.type, { query: name }).catch(() => undefined);
    if (Array.isArray(symbols) && symbols.some((symbol: { name?: unknown }) => symbol.name === name)) return true;
    await sleep(PROBE_INTERVAL_MS);
  }
  return false;
}
