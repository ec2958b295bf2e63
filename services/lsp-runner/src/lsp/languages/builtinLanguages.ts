// The languages every runner knows without a languages file. Servers shipped as npm dependencies
// of the runner (typescript-language-server, TypeScript 7, pyright) are started by absolute path;
// the others (gopls, clangd, rust-analyzer) are looked up on PATH and may be missing: a request
// for their files then fails with NO_LANGUAGE_SERVER and the install hint below.
// Defaults are the settings that keep servers from running workspace code (docs/languages.md).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { runnerFile } from "../../runnerFiles.js";
import type { LanguageDefinition, LanguageServerConfig } from "./languageServerConfig.js";

const require = createRequire(import.meta.url);

/** Heap limit of the Node-based servers (tsserver, pyright), MB. */
const SERVER_HEAP_MB = 3072;
/**
 * How long tsserver and pyright may keep a CPU busy without answering before they are restarted,
 * ms: a 20 MB Python module takes pyright ~42 s, a very large project's first load tsserver as
 * long, and a restart would only begin the same work again (file events arriving meanwhile end it).
 */
const LONG_WORK_MS = 120_000;

/** Preloaded into tsserver: every plugin a no-op (plain CommonJS, copied into dist by the build). */
export const TSSERVER_PLUGIN_GUARD = runnerFile("lsp/languages/tsserverPluginGuard.cjs");

/** TypeScript/JavaScript through typescript-language-server and the project's own pinned TypeScript. */
export function typescriptLanguage(): LanguageServerConfig {
  return {
    id: "typescript",
    extensions: TYPESCRIPT_EXTENSIONS,
    command: process.execPath,
    args: [require.resolve("typescript-language-server/lib/cli.mjs"), "--stdio"],
    // tsserver loads no plugin, whatever a workspace's tsconfig names (tsserverPluginGuard.cts).
    env: { NODE_OPTIONS: `--require=${TSSERVER_PLUGIN_GUARD}` },
    // Visible inside the sandbox too (wherever the runner is installed from).
    sandboxReadOnly: [TSSERVER_PLUGIN_GUARD],
    // The wrapper outlives a killed tsserver and then answers every request empty.
    watchProcessTree: true,
    maxBusyMs: LONG_WORK_MS,
    // Its pushes cannot tell a file's complete check from a syntax-only first result.
    diagnosticsPull: "tsserverRequest",
    serverDescription: `typescript-language-server ${packageVersion("typescript-language-server")} (TypeScript ${packageVersion("typescript")})`,
    initializationOptions: {
      // Never the workspace's node_modules copy: a workspace must not choose the code we run.
      // One tsserver, no syntax server: while the project loads, a syntax server answers definition
      // and references syntactically (the import, not the declaration) before any $/progress
      // announces the loading, so such half answers could not be told from complete ones.
      tsserver: {
        path: require.resolve("typescript/lib/tsserver.js"),
        fallbackPath: undefined,
        useSyntaxServer: "never",
      },
      disableAutomaticTypingAcquisition: true,
      // tsserver's heap, MB: a project that names huge files fails (and, past the restart budget,
      // stays failed) instead of growing without bound.
      maxTsServerMemory: SERVER_HEAP_MB,
      plugins: [],
      preferences: { includeInlayParameterNameHints: "all", includeInlayVariableTypeHints: true },
    },
    settings: {
      formattingOptions: { tabSize: 2, insertSpaces: true },
    },
    install: "typescript-language-server and typescript are dependencies of @lspmesh/lsp-runner: run npm ci",
  };
}

const TYPESCRIPT_EXTENSIONS = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
};

/**
 * The native TypeScript 7 server (`tsc --lsp --stdio`), opt-in: it claims the same extensions as
 * "typescript", so enabling it means disabling that one. Runs the platform binary of the runner's
 * `typescript-native` dependency (npm:typescript@7) directly, without the Node wrapper.
 */
export function typescriptNativeLanguage(): LanguageServerConfig {
  return {
    id: "typescript-native",
    extensions: TYPESCRIPT_EXTENSIONS,
    command: nativeTypescriptExecutable() ?? "tsc",
    args: ["--lsp", "--stdio"],
    serverDescription: `TypeScript ${packageVersion("typescript-native")} (tsc --lsp)`,
    // Automatic type acquisition off: it would run npm to download @types packages from the
    // registry into ~/.cache/typescript/7.0 (network, a shared home folder) for any JS project.
    settings: {
      typescript: {
        inlayHints: { parameterNames: { enabled: "all" }, variableTypes: { enabled: true } },
        tsserver: { automaticTypeAcquisition: { enabled: false } },
      },
      javascript: {
        inlayHints: { parameterNames: { enabled: "all" }, variableTypes: { enabled: true } },
        tsserver: { automaticTypeAcquisition: { enabled: false } },
      },
    },
    install:
      "the runner's typescript-native dependency (npm:typescript@7) has no binary for this platform; install TypeScript 7 and set its tsc as the command",
  };
}

/** The version of a dependency of the runner ("unknown" when it is not installed). */
function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** `@typescript/typescript-<platform>-<arch>/lib/tsc` next to typescript-native, if installed. */
function nativeTypescriptExecutable(): string | undefined {
  try {
    const fromNative = createRequire(require.resolve("typescript-native/package.json"));
    const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}/package.json`;
    const exe = process.platform === "win32" ? "tsc.exe" : "tsc";
    return join(dirname(fromNative.resolve(platformPackage)), "lib", exe);
  } catch {
    return undefined;
  }
}

/** Python through pyright, a dependency of the runner (basedpyright works the same way: docs/languages.md). */
export function pythonLanguage(): LanguageServerConfig {
  return {
    id: "python",
    extensions: { ".py": "python", ".pyi": "python" },
    command: process.execPath,
    args: [require.resolve("pyright/langserver.index.js"), "--stdio"],
    // Pyright stops pushing diagnostics once a client accepts dynamically registered pull
    // diagnostics; push keeps it analysing open files in the background.
    initializationOptions: { disablePullDiagnostics: true },
    // Its pushes cannot tell a checked file from one only parsed: a module imported by the file
    // being checked is first published without its errors, which come once its check ends. So a
    // file's diagnostics are asked for (pyright answers `textDocument/diagnostic` even unoffered).
    diagnosticsPull: "textDocumentDiagnostic",
    // Pyright's heap, MB (as tsserver's).
    env: { NODE_OPTIONS: `--max-old-space-size=${SERVER_HEAP_MB}` },
    // Pyright reports no progress while it analyses the workspace.
    readinessProbe: "workspaceSymbol",
    // A find-references cancelled before its search began breaks every later one (languageServerConfig.ts).
    uncancelledMethods: ["textDocument/references"],
    serverDescription: `pyright ${packageVersion("pyright")}`,
    settings: {
      python: {
        analysis: { autoSearchPaths: true, useLibraryCodeForTypes: true, diagnosticMode: "openFilesOnly" },
      },
    },
    includeConfig: "pyright",
    maxBusyMs: LONG_WORK_MS,
    install: "pyright is a dependency of @lspmesh/lsp-runner: run npm ci",
  };
}

/** Go through gopls; GOTOOLCHAIN=local keeps a go.mod `toolchain` line from downloading and running another Go. */
export function goLanguage(): LanguageServerConfig {
  return {
    id: "go",
    extensions: { ".go": "go" },
    command: "gopls",
    args: [],
    // symbolScope (gopls 0.12+; older ones ignore it): library symbols, which lspmesh leaves out of
    // answers, do not take places among the 100 workspace/symbol matches.
    settings: { gopls: { directoryFilters: ["-**/node_modules"], symbolScope: "workspace" } },
    env: { GOTOOLCHAIN: "local" },
    // Folders `./...` skips (`_examples/`) and nested modules are searched only while open.
    includeConfig: "go",
    // gopls answers workspace/symbol with its best 100 matches, a fixed cap.
    workspaceSymbolLimit: { most: 100 },
    // In the sandbox: the module cache (read-only: no downloads) and a Go toolchain outside /usr.
    sandboxReadOnly: ["~/go/pkg/mod", "~/go/bin", "~/sdk"],
    install:
      "install gopls and Go (Debian: apt-get install gopls golang-go; or go install golang.org/x/tools/gopls@latest)",
  };
}

/** C and C++ through clangd, which never runs compilers unless --query-driver allows it (not set). */
export function cppLanguage(): LanguageServerConfig {
  return {
    id: "cpp",
    extensions: {
      ".c": "c",
      ".h": "cpp",
      ".cc": "cpp",
      ".cpp": "cpp",
      ".cxx": "cpp",
      ".c++": "cpp",
      ".hh": "cpp",
      ".hpp": "cpp",
      ".hxx": "cpp",
      ".h++": "cpp",
      ".ipp": "cpp",
    },
    command: "clangd",
    // Background indexing (clangd's default) answers workspace symbols for unopened files; it
    // writes .cache/clangd/index inside the workspace. -j bounds its worker threads. clangd stops
    // at 1 000 references by default and says nothing (a macro used in every test file of libuv has
    // more), so its answers would be an arbitrary part; lspmesh pages references itself.
    args: [
      "--background-index",
      "--header-insertion=never",
      "--pch-storage=memory",
      "-j=2",
      "--log=error",
      "--limit-references=0",
    ],
    // clangd answers workspace/symbol with 100 matches unless the request asks for more.
    workspaceSymbolLimit: { most: 10_000, asked: true },
    // Other translation units read included headers from disk, not from the open documents.
    unsavedSeenByImporters: false,
    // clangd finds compile_commands.json in the folders above a file and their build/ folders.
    indexProgress: {
      title: "indexing",
      label: "clangd's background index has not started yet",
      databases: ["compile_commands.json", "build/compile_commands.json"],
      missingNote:
        "no compile_commands.json in the workspace root or build/: clangd guesses compile flags and knows only the files opened so far, so uses elsewhere may be missing (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; make: bear -- make)",
    },
    install: "install clangd (Debian: apt-get install clangd)",
  };
}

/** rust-analyzer settings that stop it running workspace code: build scripts, proc macros, cargo check. */
const RUST_ANALYZER_SAFE = {
  cargo: { buildScripts: { enable: false } },
  procMacro: { enable: false },
  checkOnSave: false,
  // Its workspace/symbol finds types only unless told otherwise (functions are symbols too).
  workspace: { symbol: { search: { kind: "all_symbols" } } },
};

/** Rust through rust-analyzer with build scripts, proc macros and check-on-save off. */
export function rustLanguage(): LanguageServerConfig {
  return {
    id: "rust",
    extensions: { ".rs": "rust" },
    command: "rust-analyzer",
    args: [],
    initializationOptions: RUST_ANALYZER_SAFE,
    settings: { "rust-analyzer": RUST_ANALYZER_SAFE },
    // rust-analyzer answers workspace/symbol with 128 matches (workspace.symbol.search.limit).
    workspaceSymbolLimit: { most: 128 },
    // In the sandbox: rustup's proxy and toolchains (the standard library's sources), read-only.
    sandboxReadOnly: ["~/.rustup", "~/.cargo/bin", "~/.cargo/registry"],
    install: "install rust-analyzer (rustup component add rust-analyzer, or a release binary on PATH)",
  };
}

/** Every built-in language, in the order workspace-level queries try them. */
export function builtinLanguages(): LanguageDefinition[] {
  return [
    { ...typescriptLanguage(), enabled: true },
    { ...typescriptNativeLanguage(), enabled: false },
    { ...pythonLanguage(), enabled: true },
    { ...goLanguage(), enabled: true },
    { ...cppLanguage(), enabled: true },
    { ...rustLanguage(), enabled: true },
  ];
}

/** The enabled built-in languages: what a runner serves without a languages file. */
export function defaultLanguages(): LanguageServerConfig[] {
  return builtinLanguages().flatMap(({ enabled, ...language }) => (enabled ? [language] : []));
}
