// Project-based servers (tsserver) know only the projects of the files they have open: a
// workspace-wide question asked through one file misses every other project (a monorepo's
// packages, a tests project, a benchmarks folder). The anchors are one openable source file per
// project — per tsconfig.json/jsconfig.json and per config a solution file references (hono's
// tsconfig.json only references tsconfig.build.json and tsconfig.spec.json), plus one for the files
// outside every project — so opening them loads every project before the question is asked. A
// project's anchor is preferably a file no other project includes (a test file for the tests
// project), since tsserver gives a file to the first project that includes it. Files a server
// cannot be given (too large, binary) are never anchors: they are skipped and reported.
import { open, stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { outsideGoModule } from "../lsp/languages/goModuleScope.js";
import { parseJsonc } from "../lsp/languages/jsonc.js";
import type { LanguageServerConfig } from "../lsp/languages/languageRegistry.js";
import { outsidePyrightInclude } from "../lsp/languages/pyrightInclude.js";
import { globToRegExp } from "../lsp/session/globPattern.js";
import { readRegularFile } from "../workspace/metadata.js";
import { listSourceFiles } from "../workspace/sourceFiles.js";

/** Project files by language id; other languages need one anchor (their server reads the workspace itself). */
const PROJECT_FILES: Readonly<Record<string, readonly string[]>> = {
  typescript: ["tsconfig.json", "jsconfig.json"],
  "typescript-native": ["tsconfig.json", "jsconfig.json"],
};

/** Whether a language's server works by projects (tsserver): it knows only the projects of open files. */
export function isProjectBased(languageId: string): boolean {
  return (PROJECT_FILES[languageId] ?? []).length > 0;
}

/** Projects loaded for one workspace-wide question at most (each costs the server memory). */
export const MAX_PROJECTS = 24;
/** Files outside every project given to a project-based server as one project, at most (default 2 000). */
export const MAX_LOOSE_FILES = 2_000;
/**
 * Files outside every project opened one by one (each in an inferred project) rather than given as
 * one external project, at most, in a workspace that has projects (engineContext.ts says why).
 */
export const MAX_LOOSE_FILES_OPENED = 32;
/** The name of the group of files outside every project, in `projects`. */
export const LOOSE_GROUP = "the files outside every project";
/** Source and project files looked at when choosing anchors. */
const FILES_SCANNED = 20_000;
/** How deep `extends` and `references` chains are followed. */
const MAX_CHAIN = 4;

export interface ProjectAnchors {
  /** Workspace-relative files to open, one per project. */
  anchors: string[];
  /** Projects found beyond MAX_PROJECTS (not loaded). */
  notLoaded: number;
  /** Files passed over as anchors, with why (too large, binary). */
  skipped: Array<{ file: string; reason: string }>;
  /**
   * For languages with project files (tsconfig.json): the source files no project includes, not
   * over the size limit, at most MAX_LOOSE_FILES (a server knows them only once opened).
   */
  looseFiles: string[];
  /** Such files beyond MAX_LOOSE_FILES. */
  looseNotLoaded: number;
  /** Every project found (the files outside every project as one more), by the files it includes. */
  projects: ProjectGroup[];
  /** Source files the server searches only while open (pyright's `include`, gopls's `./...`), if any. */
  outsideInclude?: ServerScope;
}

/** Workspace files a server leaves out of workspace-wide answers unless they are open. */
export interface ServerScope {
  outside: string[];
  /** What the server searches, after "<server> searches only": "the files its … includes …". */
  searches: string;
  /** What brings the files left out in. */
  fix: string;
  /** An open file brings in its whole folder (gopls loads its package: every file of the folder). */
  byFolder: boolean;
}

/** One project's source files: those no other project includes, and those it shares. */
export interface ProjectGroup {
  /** Its config (`packages/a/tsconfig.json`), or "the files outside every project". */
  name: string;
  unique: ReadonlySet<string>;
  shared: ReadonlySet<string>;
}

/** What a project config says about its files, patterns made workspace-relative. */
interface ProjectFiles {
  files?: string[];
  include?: RegExp[];
  exclude: RegExp[];
  /** A solution file: only references, no files of its own. */
  solution: boolean;
  references: string[];
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
  const projects = projectNames.length > 0 ? await discoverProjects(root, files, projectNames) : [];
  const groups: string[][] = [];
  const foundProjects: ProjectGroup[] = [];
  const includes = (project: ProjectFiles, file: string) => inProject(project, file);
  for (const project of projects) {
    const included = sources.filter((file) => includes(project, file));
    const unique = included.filter((file) => projects.every((other) => other === project || !includes(other, file)));
    const shared = included.filter((file) => !unique.includes(file));
    groups.push([...typescriptFirst(unique), ...typescriptFirst(shared)]);
    if (included.length > 0)
      foundProjects.push({ name: project.config, unique: new Set(unique), shared: new Set(shared) });
  }
  const loose = projects.length > 0 ? sources.filter((file) => !projects.some((p) => includes(p, file))) : sources;
  groups.push(sourcesBeforeTests(loose));
  if (loose.length > 0) foundProjects.push({ name: LOOSE_GROUP, unique: new Set(loose), shared: new Set() });

  const skipped: ProjectAnchors["skipped"] = [];
  const anchors: string[] = [];
  let found = 0;
  for (const candidates of groups) {
    if (candidates.length === 0) continue;
    found++;
    if (anchors.length >= MAX_PROJECTS) continue;
    for (const file of candidates) {
      if (anchors.includes(file)) break;
      const problem = await unopenable(join(root, file), maxFileBytes);
      if (!problem) {
        anchors.push(file);
        break;
      }
      if (!skipped.some((skip) => skip.file === file)) skipped.push({ file, reason: problem });
    }
  }
  const looseFiles =
    projectNames.length > 0 ? await withinSize(root, loose.slice(0, MAX_LOOSE_FILES), maxFileBytes) : [];
  const looseNotLoaded = projectNames.length > 0 ? Math.max(0, loose.length - MAX_LOOSE_FILES) : 0;
  const outsideInclude = await serverScope(root, language, sources);
  return {
    anchors,
    notLoaded: Math.max(0, found - MAX_PROJECTS),
    skipped,
    looseFiles,
    looseNotLoaded,
    projects: foundProjects,
    ...(outsideInclude ? { outsideInclude } : {}),
  };
}

/** What the server's configuration (pyright) or conventions (gopls) leave out of `sources`. */
async function serverScope(
  root: string,
  language: LanguageServerConfig,
  sources: readonly string[],
): Promise<ServerScope | undefined> {
  if (language.includeConfig === "pyright") {
    const left = await outsidePyrightInclude(root, sources);
    if (!left) return undefined;
    return {
      outside: left.outside,
      searches: `the files its ${left.config} includes (${left.settings.join("; ")}) and those open`,
      fix: "include them there to search them",
      byFolder: false,
    };
  }
  if (language.includeConfig !== "go") return undefined;
  const left = await outsideGoModule(root, sources);
  if (!left) return undefined;
  const modules = left.nestedModules;
  const nested =
    modules.length > 0
      ? `; other modules below it (${modules.slice(0, 3).join(", ")}${modules.length > 3 ? ", …" : ""}) are read as loose files, their dependencies unresolved`
      : "";
  return {
    outside: left.outside,
    searches: `the packages of the module at the workspace root (./..., which skips folders starting with _ or .) and those of open files${nested}`,
    fix: `open a file of each such folder (hover on it) to have its package searched${modules.length > 0 ? ", or serve a nested module as its own workspace" : ""}`,
    byFolder: true,
  };
}

/** The files not larger than maxFileBytes (regular files, as listed), in order. */
async function withinSize(root: string, files: readonly string[], maxFileBytes: number): Promise<string[]> {
  const fits: boolean[] = [];
  // A few hundred stats at a time: a workspace of thousands must not open them all at once.
  for (let start = 0; start < files.length; start += 256) {
    const batch = files.slice(start, start + 256);
    const sizes = await Promise.all(
      batch.map((file) =>
        stat(join(root, file)).then(
          (info) => info.size,
          () => -1,
        ),
      ),
    );
    fits.push(...sizes.map((size) => size >= 0 && size <= maxFileBytes));
  }
  return files.filter((_, index) => fits[index]);
}

/** Files looked at for the first openable one. */
const FIRST_FILE_SCAN = 200;

/**
 * The first file of the language a server can be given (not too large, not binary): a cheap
 * presence check and entry point, which reads no project configs. projectAnchors loads the rest.
 */
export async function firstOpenableFile(
  root: string,
  language: LanguageServerConfig,
  maxFileBytes: number,
): Promise<string | undefined> {
  const { files } = await listSourceFiles(root, new Set(Object.keys(language.extensions)), FIRST_FILE_SCAN);
  for (const file of sourcesBeforeTests(files)) if (!(await unopenable(join(root, file), maxFileBytes))) return file;
  return undefined;
}

/** Every project config: those found by name, and those solution files reference. */
async function discoverProjects(
  root: string,
  files: readonly string[],
  names: readonly string[],
): Promise<Array<ProjectFiles & { config: string }>> {
  const pending = files.filter((file) => names.includes(posix.basename(file)));
  const seen = new Set<string>();
  const projects: Array<ProjectFiles & { config: string }> = [];
  for (let round = 0; pending.length > 0 && round <= MAX_CHAIN * 64; round++) {
    const config = pending.shift()!;
    if (seen.has(config)) continue;
    seen.add(config);
    const project = await readProject(root, config);
    if (!project) continue;
    if (!project.solution) projects.push({ ...project, config });
    pending.push(...project.references);
  }
  return projects;
}

/** A config's files, with `extends` followed for what it does not say itself. */
async function readProject(root: string, config: string, depth = 0): Promise<ProjectFiles | undefined> {
  const settings = await readJsonc(join(root, config));
  if (!settings) return undefined;
  const dir = posix.dirname(config);
  const at = (path: string) => posix.normalize(posix.join(dir, path));
  let inherited: ProjectFiles | undefined;
  if (typeof settings.extends === "string" && settings.extends.startsWith(".") && depth < MAX_CHAIN) {
    const base = at(settings.extends.endsWith(".json") ? settings.extends : `${settings.extends}.json`);
    inherited = await readProject(root, base, depth + 1);
  }
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : undefined;
  const ownFiles = strings(settings.files)?.map(at);
  const ownInclude = strings(settings.include)?.map((pattern) => includeGlob(at(pattern)));
  const ownExclude = strings(settings.exclude)?.map((pattern) => includeGlob(at(pattern)));
  const references = (Array.isArray(settings.references) ? settings.references : [])
    .map((reference) => (reference as { path?: unknown })?.path)
    .filter((path): path is string => typeof path === "string")
    .map((path) => (path.endsWith(".json") ? at(path) : posix.join(at(path), "tsconfig.json")));
  const files = ownFiles ?? inherited?.files;
  const include = ownInclude ?? inherited?.include;
  // Without `files` or `include` anywhere in the chain, a project holds every file under its own
  // folder, not under the folder of the config it extends (docs/tsconfig.json extending
  // ../tsconfig.json holds docs/**): the default is the leaf's, so a base passes none on.
  const leaf = depth === 0;
  return {
    files,
    include: include ?? (files || !leaf ? undefined : [includeGlob(at("**/*"))]),
    exclude: ownExclude ?? inherited?.exclude ?? [],
    solution: files !== undefined && files.length === 0 && include === undefined,
    references,
  };
}

/** tsconfig `include` semantics: a pattern without a wildcard or extension is a folder. */
function includeGlob(pattern: string): RegExp {
  const last = pattern.split("/").at(-1) ?? "";
  const folder = !/[*?]/.test(pattern) && !last.includes(".");
  const glob = pattern === "." ? "**/*" : folder ? `${pattern}/**/*` : pattern;
  return globToRegExp(glob.replace(/^\.\//, ""));
}

function inProject(project: ProjectFiles, file: string): boolean {
  if (project.files?.includes(file)) return true;
  if (!project.include?.some((pattern) => pattern.test(file))) return false;
  return !project.exclude.some((pattern) => pattern.test(file));
}

/** Test files by the conventions of the built-in languages: `_test.go`, `*.test.ts`, `test_*.py`, `tests/`. */
const TEST_FILE = /(^|\/)(tests?|__tests__|testing|spec)\/|(^|\/)test_[^/]*$|[._-](test|spec)\.[^/.]+$/i;
/** C and C++ headers: clangd guesses their flags (they have no compile command of their own). */
const HEADER_FILE = /\.(h|hh|hpp|hxx|h\+\+|ipp)$/i;

/**
 * Source files first, then headers, then test files, each in listing order: the entry point a
 * user has open. Anchoring on a test file changes what some servers load (gopls then loads the
 * package's test variant and finds references in other test files that a question about a source
 * file would not); a header is compiled with guessed flags.
 */
export function sourcesBeforeTests(files: readonly string[]): string[] {
  const rank = (file: string) => (TEST_FILE.test(file) ? 2 : HEADER_FILE.test(file) ? 1 : 0);
  return [0, 1, 2].flatMap((wanted) => files.filter((file) => rank(file) === wanted));
}

function typescriptFirst(files: readonly string[]): string[] {
  const isTypescript = (file: string) => /\.[mc]?tsx?$/.test(file);
  return [...files.filter(isTypescript), ...files.filter((file) => !isTypescript(file))];
}

/** tsconfig.json allows comments and trailing commas; undefined when unreadable. */
async function readJsonc(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return parseJsonc((await readRegularFile(path)).toString("utf8"));
  } catch {
    return undefined;
  }
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
