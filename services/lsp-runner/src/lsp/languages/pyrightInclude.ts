// pyright analyses the files its configuration includes — `include` in pyrightconfig.json, or in
// pyproject.toml's [tool.pyright] (pyrightconfig.json wins when both exist; default: the whole
// workspace) — and of the others only those open or imported. A workspace-wide answer (references,
// a rename) then misses the uses in files left out: click's `include = ["src", "tests/typing"]`
// leaves tests/ out, and a rename applied from such an answer would break them. Files its `exclude`
// names are left out too (unless imported, and even then not searched as the workspace's own).
// Which files are left out is worked out here, as pyright matches entries: a path (a folder and
// everything below it, or a file), with `*`, `**` and `?` wildcards.
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { readRegularFileBeneath } from "../../workspace/metadata.js";
import { globToRegExp } from "../session/globPattern.js";
import { parseJsonc } from "./jsonc.js";

/** Largest configuration file read, bytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export interface PyrightInclude {
  /** The file that set `include` or `exclude`: "pyrightconfig.json" or "pyproject.toml". */
  config: string;
  /** What it sets, for the note: `include = [...]`, `exclude = [...]`. */
  settings: string[];
  /** Workspace files (of those given) an include entry does not cover, or an exclude entry does. */
  outside: string[];
}

/** The files of `sources` pyright's configuration leaves out; undefined when it leaves none out. */
export async function outsidePyrightInclude(
  root: string,
  sources: readonly string[],
): Promise<PyrightInclude | undefined> {
  const configured = await configuredScope(root);
  if (!configured) return undefined;
  const included = (configured.include ?? ["."]).map(pathMatcher);
  const excluded = (configured.exclude ?? []).map(pathMatcher);
  const outside = sources.filter(
    (file) => !included.some((matches) => matches(file)) || excluded.some((matches) => matches(file)),
  );
  if (outside.length === 0) return undefined;
  const settings = (["include", "exclude"] as const).flatMap((key) => {
    const list = configured[key];
    return list ? [`${key} = [${list.map((entry) => JSON.stringify(entry)).join(", ")}]`] : [];
  });
  return { config: configured.config, settings, outside };
}

interface Scope {
  config: string;
  include?: string[];
  exclude?: string[];
}

async function configuredScope(root: string): Promise<Scope | undefined> {
  const json = await readConfig(root, "pyrightconfig.json");
  if (json !== undefined) return scopeOf("pyrightconfig.json", parseJsonc(json));
  const toml = await readConfig(root, "pyproject.toml");
  if (toml === undefined) return undefined;
  try {
    return scopeOf("pyproject.toml", (parseToml(toml) as { tool?: { pyright?: unknown } }).tool?.pyright);
  } catch {
    return undefined; // pyright itself reports a broken pyproject.toml
  }
}

function scopeOf(config: string, settings: unknown): Scope | undefined {
  const { include, exclude } = (settings ?? {}) as { include?: unknown; exclude?: unknown };
  const scope: Scope = { config };
  const includeList = stringList(include);
  const excludeList = stringList(exclude);
  if (includeList) scope.include = includeList;
  if (excludeList) scope.exclude = excludeList;
  return includeList || excludeList ? scope : undefined;
}

async function readConfig(root: string, name: string): Promise<string | undefined> {
  try {
    const { bytes } = await readRegularFileBeneath(root, join(root, name), MAX_CONFIG_BYTES);
    return bytes?.toString("utf8");
  } catch {
    return undefined;
  }
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.filter((entry): entry is string => typeof entry === "string");
}

/** Whether a workspace-relative POSIX path is covered by one include or exclude entry. */
function pathMatcher(entry: string): (file: string) => boolean {
  const path = entry
    .replace(/\\/g, "/")
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
  if (path === "" || path === ".") return () => true;
  if (/[*?]/.test(path)) {
    const pattern = globToRegExp(path);
    // A pattern names folders as well as files: what lies below a matching folder is included.
    return (file) => {
      const parts = file.split("/");
      return parts.some((_, i) => pattern.test(parts.slice(0, i + 1).join("/")));
    };
  }
  return (file) => file === path || file.startsWith(`${path}/`);
}
