// gopls loads the packages of the module at the workspace root as the go tool lists them
// (`./...`), and of the other files only those of packages it was made to load (an open file).
// `./...` leaves out folders whose name starts with `_` or `.` (go-chi/chi's `_examples/…`, which
// are packages of the same module importing it) and the folders of other modules below the root
// (a folder with its own go.mod, which gopls without a go.work reads as loose files). A
// workspace-wide answer (references, a rename) then misses the uses there: a rename applied from
// such an answer would break them. Which files are left out is worked out here; `testdata`
// folders, which the go tool never builds, are not counted, nor other modules that take no code
// from the workspace (no `replace` to a local folder in their go.mod: `_examples/rest` requires a
// published chi, so its uses are of that version, not of the workspace's code).
import { readFile, stat } from "node:fs/promises";
import { join, posix } from "node:path";

/** Go files of `sources` that gopls does not load from a workspace rooted at `root`. */
export interface GoModuleScope {
  /** Files in folders `./...` skips (a segment starting with `_` or `.`) or in another module. */
  outside: string[];
  /** Folders below the root holding a go.mod of their own that replaces a module by a local folder, sorted. */
  nestedModules: string[];
}

/**
 * The files of `sources` (workspace-relative, POSIX) gopls leaves out, or undefined when none are
 * or when the root is not a module on its own: no go.mod at the root (gopls then shows its own
 * load error), or a go.work (which names the modules it loads).
 */
export async function outsideGoModule(root: string, sources: readonly string[]): Promise<GoModuleScope | undefined> {
  if (!(await isModuleAlone(root))) return undefined;
  const modules = new Map<string, Promise<GoMod>>();
  const goModOf = (folder: string) => {
    let known = modules.get(folder);
    if (!known) {
      known = readGoMod(join(root, folder, "go.mod"));
      modules.set(folder, known);
    }
    return known;
  };
  const outside: string[] = [];
  const nested = new Set<string>();
  for (const file of sources) {
    const folders = foldersOf(file);
    if (folders.some((folder) => folder === "testdata")) continue;
    let module: { folder: string; goMod: GoMod } | undefined;
    for (let depth = 1; depth <= folders.length && !module; depth++) {
      const folder = folders.slice(0, depth).join("/");
      const goMod = await goModOf(folder);
      if (goMod !== "none") module = { folder, goMod };
    }
    if (module?.goMod === "published") continue;
    if (module) nested.add(module.folder);
    if (module || folders.some((folder) => folder.startsWith("_") || folder.startsWith("."))) outside.push(file);
  }
  if (outside.length === 0) return undefined;
  return { outside, nestedModules: [...nested].sort() };
}

/**
 * The folder (workspace-relative) of the module below the root that holds `file`, when the root
 * is a module on its own (a go.mod, no go.work): gopls reads such a file alone, as a loose file,
 * so what it answers about it may miss or mislead. Undefined for files of the root module.
 */
export async function nestedGoModuleOf(root: string, file: string): Promise<string | undefined> {
  if (!(await isModuleAlone(root))) return undefined;
  const folders = foldersOf(file);
  for (let depth = folders.length; depth >= 1; depth--) {
    const folder = folders.slice(0, depth).join("/");
    if (await isFile(join(root, folder, "go.mod"))) return folder;
  }
  return undefined;
}

/**
 * The root is a module on its own: a go.mod, and no go.work (which names the modules gopls loads).
 * Without a go.mod at the root gopls shows its own load error.
 */
async function isModuleAlone(root: string): Promise<boolean> {
  return (await isFile(join(root, "go.mod"))) && !(await isFile(join(root, "go.work")));
}

/** The folder names on a workspace-relative path, outermost first (none for a file at the root). */
function foldersOf(file: string): string[] {
  const folder = posix.dirname(file);
  return folder === "." ? [] : folder.split("/");
}

/** A folder's go.mod: none, one replacing a module by a local folder (`=> ../..`), or one using published modules only. */
type GoMod = "none" | "local" | "published";

/** Largest go.mod read, bytes. */
const MAX_GO_MOD_BYTES = 1024 * 1024;

async function readGoMod(path: string): Promise<GoMod> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return "none";
  // `replace m => ../..` or in a replace ( … ) block; a local target starts with ./ or ../ (or is absolute).
  return /=>\s*(?:\.{1,2}[\\/]|\/)/.test(text.slice(0, MAX_GO_MOD_BYTES)) ? "local" : "published";
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}
