// Project-based servers (tsserver) know only the projects of the files they have open: a
// workspace-wide question asked through one file misses every other project (a monorepo's
// packages, a tests project, a benchmarks folder). The anchors are one openable source file per
// project — per tsconfig.json/jsconfig.json, plus one for the files outside every project — so
// opening them loads every project before the question is asked. Files a server cannot be given
// (too large, binary) are never anchors: they are skipped and reported, not fatal.
import { open, readFile, stat } from "node:fs/promises";
import { join, posix } from "node:path";
import type { LanguageServerConfig } from "../lsp/languages/languageRegistry.js";
import { listSourceFiles } from "../workspace/sourceFiles.js";

/** Project files by language id; other languages need one anchor (their server reads the workspace itself). */
const PROJECT_FILES: Readonly<Record<string, readonly string[]>> = {
  typescript: ["tsconfig.json", "jsconfig.json"],
  "typescript-native": ["tsconfig.json", "jsconfig.json"],
};

/** Projects loaded for one workspace-wide question at most (each costs the server memory). */
export const MAX_PROJECTS = 24;
/** Source and project files looked at when choosing anchors. */
const FILES_SCANNED = 20_000;

export interface ProjectAnchors {
  /** Workspace-relative files to open, one per project. */
  anchors: string[];
  /** Projects found beyond MAX_PROJECTS (not loaded). */
  notLoaded: number;
  /** Files passed over as anchors, with why (too large, binary). */
  skipped: Array<{ file: string; reason: string }>;
}

export async function projectAnchors(
  root: string,
  language: LanguageServerConfig,
  maxFileBytes: number,
): Promise<ProjectAnchors> {
  const extensions = new Set(Object.keys(language.extensions));
  const projectNames = PROJECT_FILES[language.id] ?? [];
  const { files } = await listSourceFiles(root, new Set([...extensions, ".json"]), FILES_SCANNED);
  const sources = files.filter((file) => extensions.has(posix.extname(file).toLowerCase()));
  const projectDirs = files
    .filter((file) => projectNames.includes(posix.basename(file)))
    .map((file) => posix.dirname(file))
    .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
  // Each source file belongs to its nearest project folder ("" = outside every project).
  const byProject = new Map<string, string[]>();
  for (const file of sources) {
    const owner = projectDirs.filter((dir) => dir === "." || file.startsWith(`${dir}/`)).at(-1) ?? "";
    byProject.set(owner, [...(byProject.get(owner) ?? []), file]);
  }
  const skipped: ProjectAnchors["skipped"] = [];
  const anchors: string[] = [];
  const groups = projectNames.length > 0 ? [...projectDirs, ""] : [""];
  let projects = 0;
  const configNames = new Map(
    files
      .filter((file) => projectNames.includes(posix.basename(file)))
      .map((file) => [posix.dirname(file), file] as const),
  );
  // Files in a project's folder that it does not include land in an inferred project of their own.
  const outside = [...(byProject.get("") ?? [])];
  const candidatesOf = new Map<string, string[]>();
  for (const group of projectDirs) {
    const { included, excluded } = await splitByProject(root, configNames.get(group)!, byProject.get(group) ?? []);
    candidatesOf.set(group, included);
    outside.push(...excluded);
  }
  candidatesOf.set("", projectNames.length > 0 ? outside.sort() : sources);
  for (const group of groups) {
    const candidates = candidatesOf.get(group) ?? [];
    if (candidates.length === 0) continue;
    projects++;
    if (anchors.length >= MAX_PROJECTS) continue;
    for (const file of candidates) {
      const problem = await unopenable(join(root, file), maxFileBytes);
      if (!problem) {
        anchors.push(file);
        break;
      }
      skipped.push({ file, reason: problem });
    }
  }
  return { anchors, notLoaded: Math.max(0, projects - MAX_PROJECTS), skipped };
}

/**
 * The files a project includes (by its `files` and `include`; all of them when it says neither),
 * TypeScript first (a project without allowJs leaves JavaScript out), and the rest. A root
 * eslint.config.js sits in the folder of a project that includes only src/, but is not in it. A
 * solution file (`"files": []`, only references) includes nothing.
 */
async function splitByProject(
  root: string,
  config: string,
  owned: readonly string[],
): Promise<{ included: string[]; excluded: string[] }> {
  const settings = await readJsonc(join(root, config));
  const dir = posix.dirname(config);
  const relative = (file: string) => (dir === "." ? file : file.slice(dir.length + 1));
  const listed = Array.isArray(settings?.files)
    ? (settings.files as unknown[]).filter((entry): entry is string => typeof entry === "string")
    : undefined;
  const include = Array.isArray(settings?.include)
    ? (settings.include as unknown[]).filter((entry): entry is string => typeof entry === "string")
    : undefined;
  if (!listed && !include) return { included: typescriptFirst(owned), excluded: [] };
  const prefixes = [...(listed ?? []), ...(include ?? [])]
    .map((pattern) => pattern.replace(/^\.\//, "").split(/[*?{[]/)[0] ?? "")
    .map((prefix) => prefix.replace(/\/+$/, ""))
    .map((prefix) => (prefix === "." ? "" : prefix));
  const isIncluded = (file: string) => {
    const path = relative(file);
    return prefixes.some((prefix) => prefix === "" || path === prefix || path.startsWith(`${prefix}/`));
  };
  return {
    included: typescriptFirst(owned.filter(isIncluded)),
    excluded: owned.filter((file) => !isIncluded(file)),
  };
}

function typescriptFirst(files: readonly string[]): string[] {
  const isTypescript = (file: string) => /\.[mc]?tsx?$/.test(file);
  return [...files.filter(isTypescript), ...files.filter((file) => !isTypescript(file))];
}

/** tsconfig.json allows comments and trailing commas; undefined when unreadable. */
async function readJsonc(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const text = await readFile(path, "utf8");
    const stripped = text
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|[^:"\\])\/\/.*$/gm, "$1")
      .replace(/,(\s*[}\]])/g, "$1");
    return JSON.parse(stripped) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function depth(dir: string): number {
  return dir === "." ? 0 : dir.split("/").length;
}

/** Why a file cannot be given to a server, or undefined when it can. */
async function unopenable(path: string, maxFileBytes: number): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return "unreadable";
  if (info.size > maxFileBytes) return `larger than ${(maxFileBytes / 1048576).toFixed(1)} MiB`;
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return "unreadable";
  try {
    const head = Buffer.alloc(Math.min(8192, info.size));
    await handle.read(head, 0, head.length, 0);
    return head.includes(0) ? "binary" : undefined;
  } finally {
    await handle.close();
  }
}
