// Library files outside the workspace that answers may point into: those of the runner's own
// installation (the TypeScript lib files, pyright's bundled typeshed), of the system (C headers,
// a Go or Python installation), and the library folders the languages are configured to read (the
// Go module cache and SDKs, rustup's toolchains and cargo's registry: their `sandboxReadOnly`, and
// GOMODCACHE/GOROOT set in their environment; for pyright, the standard library and site-packages
// of the Python it resolves imports with). Anything else outside the workspace — another tenant's
// workspace, a home directory — is never shown.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { isAbsolute, sep } from "node:path";
import type { LanguageServerConfig } from "../lsp/languages/languageServerConfig.js";
import { childEnvironment } from "../lsp/process/childEnvironment.js";
import { findExecutable } from "../lsp/process/commandLookup.js";
import { homePath } from "../lsp/process/sandbox.js";

const require = createRequire(import.meta.url);

/** The runner's node_modules folder (with a trailing slash), where its language servers live. */
const RUNNER_MODULES = (() => {
  const typescript = require.resolve("typescript/package.json");
  const at = typescript.lastIndexOf("/node_modules/");
  return at < 0 ? undefined : typescript.slice(0, at + "/node_modules/".length);
})();

/** System library folders, shown by their absolute path. */
const SYSTEM_FOLDERS = ["/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/local/lib/", "/usr/share/"];

/** Environment variables of a language that name a library folder its server reads. */
const LIBRARY_VARIABLES = ["GOMODCACHE", "GOROOT"];

/** The library folders the languages read beyond the system's, absolute, each ending with a slash. */
export function languageLibraryFolders(languages: readonly LanguageServerConfig[]): string[] {
  const folders = new Set<string>();
  for (const language of languages) {
    const configured = [
      ...(language.sandboxReadOnly ?? []),
      ...LIBRARY_VARIABLES.map((name) => language.env?.[name] ?? ""),
      ...(language.includeConfig === "pyright" ? pythonLibraryFolders(language) : []),
    ];
    for (const path of configured.map(homePath)) {
      // The root itself, or a folder with less than two levels, would show too much.
      if (isAbsolute(path) && path.split(sep).filter(Boolean).length >= 2) folders.add(path.replace(/\/*$/, "/"));
    }
  }
  return [...folders];
}

/** What the interpreter says its library folders are: standard library and site-packages. */
const PYTHON_PATHS =
  "import json, sysconfig; print(json.dumps([v for k, v in sysconfig.get_paths().items() if k in ('stdlib', 'platstdlib', 'purelib', 'platlib')]))";

/**
 * The standard library and site-packages of the Python that pyright resolves imports with (the
 * `python3` or `python` on the server's PATH, run isolated, once); none when there is none.
 */
function pythonLibraryFolders(language: LanguageServerConfig): string[] {
  const path = language.env?.PATH ?? process.env.PATH;
  const python = findExecutable("python3", path) ?? findExecutable("python", path);
  if (!python) return [];
  try {
    const said = execFileSync(python, ["-I", "-c", PYTHON_PATHS], {
      encoding: "utf8",
      env: childEnvironment(language.env),
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5_000,
    });
    const folders: unknown = JSON.parse(said);
    return Array.isArray(folders) ? folders.filter((folder): folder is string => typeof folder === "string") : [];
  } catch {
    return [];
  }
}

/**
 * How an external library file is named in answers; undefined when it must not be shown.
 * `libraries`: the languages' own library folders (languageLibraryFolders), shown by absolute path.
 */
export function externalName(absolute: string, libraries: readonly string[] = []): string | undefined {
  if (absolute.includes("/../")) return undefined;
  if (RUNNER_MODULES && absolute.startsWith(RUNNER_MODULES)) {
    return `node_modules/${absolute.slice(RUNNER_MODULES.length)}`;
  }
  const shown = (folder: string) => absolute.startsWith(folder);
  return SYSTEM_FOLDERS.some(shown) || libraries.some(shown) ? absolute : undefined;
}
