import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { builtinLanguages, defaultLanguages } from "./builtinLanguages.js";
import { fieldPath, LanguageConfigError, mergeJson, mergeLanguages, parseLanguagesFile } from "./languageConfig.js";
import { LanguageRegistry } from "./languageRegistry.js";

const SOURCE = "/etc/lspmesh/languages.json";

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof LanguageConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a LanguageConfigError");
}

const merge = (text: string, baseDir?: string) =>
  mergeLanguages(builtinLanguages(), parseLanguagesFile(text, SOURCE), SOURCE, baseDir);
const byId = (languages: ReturnType<typeof merge>, id: string) => languages.find((l) => l.id === id)!;

describe("built-in languages", () => {
  test("TypeScript, Python, Go, C/C++ and Rust are enabled; native TypeScript 7 is opt-in", () => {
    expect(builtinLanguages().map((l) => [l.id, l.enabled])).toEqual([
      ["typescript", true],
      ["typescript-native", false],
      ["python", true],
      ["go", true],
      ["cpp", true],
      ["rust", true],
    ]);
    expect(defaultLanguages().map((l) => l.id)).toEqual(["typescript", "python", "go", "cpp", "rust"]);
  });

  test("the registry maps extensions of every default language, case-insensitively", () => {
    const registry = new LanguageRegistry();
    expect(registry.forFile("src/a.TSX")).toMatchObject({
      language: { id: "typescript" },
      languageId: "typescriptreact",
    });
    expect(registry.forFile("pkg/m.py")).toMatchObject({ language: { id: "python" }, languageId: "python" });
    expect(registry.forFile("main.go")).toMatchObject({ language: { id: "go" }, languageId: "go" });
    expect(registry.forFile("x.c")).toMatchObject({ language: { id: "cpp" }, languageId: "c" });
    expect(registry.forFile("x.hpp")).toMatchObject({ language: { id: "cpp" }, languageId: "cpp" });
    expect(registry.forFile("lib.rs")).toMatchObject({ language: { id: "rust" }, languageId: "rust" });
    expect(registry.forFile("README.txt")).toBeUndefined();
  });

  test("settings that stop servers running workspace code are on", () => {
    const [typescript, , , go, , rust] = builtinLanguages();
    expect(typescript!.initializationOptions).toMatchObject({ plugins: [], disableAutomaticTypingAcquisition: true });
    expect(go!.env).toEqual({ GOTOOLCHAIN: "local" });
    const safe = {
      cargo: { buildScripts: { enable: false } },
      procMacro: { enable: false },
      checkOnSave: false,
      workspace: { symbol: { search: { kind: "all_symbols" } } },
    };
    expect(rust!.initializationOptions).toEqual(safe);
    expect(rust!.settings).toEqual({ "rust-analyzer": safe });
  });
});

describe("parsing names the bad field", () => {
  test("wrong types, unknown fields and bad names are all reported at once", () => {
    const problems = problemsOf(() =>
      parseLanguagesFile(
        JSON.stringify({
          languages: {
            go: { args: ["serve", 1], comand: "gopls", env: { "A B": "x" }, requestTimeoutMs: 0 },
            lua: { extensions: { lua: "lua" }, enabled: "yes" },
            "Bad Id": {},
          },
          extra: true,
        }),
        SOURCE,
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "languages.go.args[1]: Invalid input: expected string, received number",
        'languages.go: unknown field "comand"',
        'languages.go.env["A B"]: an environment variable name is letters, digits and _',
        "languages.go.requestTimeoutMs: Too small: expected number to be >=1",
        'languages.lua.extensions.lua: an extension is a dot and a suffix, such as ".lua"',
        "languages.lua.enabled: Invalid input: expected boolean, received string",
        `languages["Bad Id"]: a language id is lower case letters, digits, '-' and '_', starting with a letter`,
        '(top level): unknown field "extra"; the file holds { "languages": { "<id>": { … } } }',
      ]),
    );
    expect(problems).toHaveLength(8);
  });

  test("invalid JSON gives the line and column", () => {
    expect(problemsOf(() => parseLanguagesFile('{\n  "languages": {\n    "go" {}\n  }\n}', SOURCE))).toEqual([
      expect.stringMatching(/^not valid JSON: .*\(line 3, column 10\)$/),
    ]);
  });

  test("the message names the file and lists every problem", () => {
    const error = (() => {
      try {
        parseLanguagesFile("[]", SOURCE);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toBe(
      `languages file ${SOURCE} is invalid:\n  - (top level): Invalid input: expected object, received array`,
    );
  });

  test("field paths quote keys that are not plain names", () => {
    expect(fieldPath(["languages", "cpp", "extensions", ".c++"])).toBe('languages.cpp.extensions[".c++"]');
    expect(fieldPath(["languages", "go", "args", 0])).toBe("languages.go.args[0]");
  });
});

describe("merging with the built-ins", () => {
  test("an empty file changes nothing", () => {
    expect(merge('{ "languages": {} }')).toEqual(builtinLanguages());
  });

  test("settings, initializationOptions and env merge key by key, so safety defaults survive", () => {
    const rust = byId(
      merge(
        JSON.stringify({
          languages: {
            rust: {
              initializationOptions: { cargo: { features: ["serde"] } },
              settings: { "rust-analyzer": { lens: { enable: false } } },
              env: { CARGO_NET_OFFLINE: "true" },
            },
          },
        }),
      ),
      "rust",
    );
    expect(rust.initializationOptions).toEqual({
      cargo: { buildScripts: { enable: false }, features: ["serde"] },
      procMacro: { enable: false },
      checkOnSave: false,
      workspace: { symbol: { search: { kind: "all_symbols" } } },
    });
    expect(rust.settings).toMatchObject({ "rust-analyzer": { procMacro: { enable: false }, lens: { enable: false } } });
    expect(rust.env).toEqual({ CARGO_NET_OFFLINE: "true" });
    expect(rust.command).toBe("rust-analyzer");
  });

  test("clangd's awaited index follows the arguments: looked for in --compile-commands-dir, dropped with the index off", () => {
    const cppWith = (args: string[] | undefined, command?: string) =>
      byId(
        merge(JSON.stringify({ languages: { cpp: { ...(args ? { args } : {}), ...(command ? { command } : {}) } } })),
        "cpp",
      ).indexProgress;
    expect(cppWith(undefined)?.databases).toEqual(["compile_commands.json", "build/compile_commands.json"]);
    const configured = cppWith(["--background-index", "--compile-commands-dir=out/debug"]);
    expect(configured?.databases).toEqual(["out/debug/compile_commands.json"]);
    expect(configured?.missingNote).toContain("no compile_commands.json in out/debug (--compile-commands-dir)");
    expect(cppWith(["--log=error"])?.databases).toEqual(["compile_commands.json", "build/compile_commands.json"]);
    expect(cppWith(["--background-index=false"])).toBeUndefined();
    expect(cppWith(undefined, "/opt/llvm/bin/clangd")).toBeUndefined();
  });

  test("a safety default is changed only by naming it", () => {
    const rust = byId(
      merge('{ "languages": { "rust": { "initializationOptions": { "procMacro": { "enable": true } } } } }'),
      "rust",
    );
    expect(rust.initializationOptions).toMatchObject({ procMacro: { enable: true }, checkOnSave: false });
  });

  test("a new command replaces args and the install hint; extensions and limits replace", () => {
    const python = byId(
      merge(
        JSON.stringify({
          languages: {
            python: {
              command: "basedpyright-langserver",
              args: ["--stdio"],
              extensions: { ".PY": "python" },
              requestTimeoutMs: 5000,
            },
          },
        }),
      ),
      "python",
    );
    expect(python).toMatchObject({
      command: "basedpyright-langserver",
      args: ["--stdio"],
      extensions: { ".py": "python" },
      requestTimeoutMs: 5000,
      install: undefined,
      settings: { python: { analysis: { diagnosticMode: "openFilesOnly" } } },
    });
    expect(byId(merge('{ "languages": { "go": { "command": "/opt/go/bin/gopls" } } }'), "go").args).toEqual([]);
    expect(byId(merge('{ "languages": { "go": { "args": ["-rpc.trace"] } } }'), "go")).toMatchObject({
      command: "gopls",
      args: ["-rpc.trace"],
    });
  });

  test("a new language needs extensions and a command, and is added after the built-ins", () => {
    const merged = merge(
      JSON.stringify({
        languages: {
          lua: {
            extensions: { ".lua": "lua" },
            command: "lua-language-server",
            settings: { Lua: { workspace: { checkThirdParty: false } } },
          },
        },
      }),
    );
    expect(merged.at(-1)).toEqual({
      id: "lua",
      enabled: true,
      extensions: { ".lua": "lua" },
      command: "lua-language-server",
      args: [],
      settings: { Lua: { workspace: { checkThirdParty: false } } },
    });
    expect(problemsOf(() => merge('{ "languages": { "zig": { "command": "zls" } } }'))).toEqual([
      'languages.zig: a new language needs "extensions" (built-in ids: typescript, typescript-native, python, go, cpp, rust)',
    ]);
  });

  test("a relative command is resolved against the file's folder, and refused without one", () => {
    const text = '{ "languages": { "lua": { "extensions": { ".lua": "lua" }, "command": "./bin/lua-ls" } } }';
    expect(byId(merge(text, "/etc/lspmesh"), "lua").command).toBe("/etc/lspmesh/bin/lua-ls");
    expect(problemsOf(() => merge(text))).toEqual([
      "languages.lua.command: './bin/lua-ls' is relative; give a name on PATH or an absolute path",
    ]);
  });

  test("two enabled languages may not claim one extension", () => {
    const problems = problemsOf(() => merge('{ "languages": { "typescript-native": { "enabled": true } } }'));
    expect(problems).toContain(
      'languages.typescript-native.extensions[".ts"]: also served by "typescript"; disable one ("enabled": false) or drop the extension from one',
    );
    expect(problems).toHaveLength(8);
  });

  test("opting into native TypeScript 7 means disabling typescript-language-server", () => {
    const merged = merge(
      '{ "languages": { "typescript": { "enabled": false }, "typescript-native": { "enabled": true } } }',
    );
    const registry = new LanguageRegistry(merged.filter((l) => l.enabled));
    expect(registry.forFile("src/main.ts")?.language).toMatchObject({
      id: "typescript-native",
      args: ["--lsp", "--stdio"],
    });
  });

  test("mergeJson merges objects recursively and replaces arrays and scalars", () => {
    expect(mergeJson({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, e: null })).toEqual({
      a: { b: 1, c: [3] },
      d: 1,
      e: null,
    });
    expect(mergeJson(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(mergeJson({ a: 1 }, undefined)).toEqual({ a: 1 });
    expect(mergeJson({ a: 1 }, [1])).toEqual([1]);
  });
});

test("every complete example in docs/languages.md is a valid languages file", () => {
  const doc = readFileSync(new URL("../../../../../docs/languages.md", import.meta.url), "utf8");
  const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((e) => !e.includes("<id>"));
  expect(examples.length).toBeGreaterThanOrEqual(4);
  for (const example of examples) expect(() => merge(example, "/etc/lspmesh")).not.toThrow();
});

describe("serve: the languages a pool serves", () => {
  const enabled = (languages: ReturnType<typeof merge>) => languages.filter((l) => l.enabled).map((l) => l.id);

  test("only the languages named are enabled; their overrides still apply", () => {
    const languages = merge(JSON.stringify({ serve: ["go"], languages: { go: { env: { GOPROXY: "off" } } } }));
    expect(enabled(languages)).toEqual(["go"]);
    expect(byId(languages, "go").env).toMatchObject({ GOPROXY: "off", GOTOOLCHAIN: "local" });
    // The built-ins themselves are not changed by a file that disables them.
    expect(builtinLanguages().find((l) => l.id === "typescript")?.enabled).toBe(true);
  });

  test("a language the file adds can be served; languages may be left out", () => {
    const languages = merge(
      JSON.stringify({ serve: ["lua"], languages: { lua: { extensions: { ".lua": "lua" }, command: "lua-ls" } } }),
    );
    expect(enabled(languages)).toEqual(["lua"]);
    expect(enabled(merge('{ "serve": ["python", "cpp"] }'))).toEqual(["python", "cpp"]);
  });

  test("an unknown or empty list is refused, naming what is known", () => {
    expect(problemsOf(() => merge('{ "serve": ["cobol"] }'))).toEqual([
      expect.stringMatching(/^serve\[0\]: no language "cobol" \(known: typescript, .*go.*\)$/),
    ]);
    expect(problemsOf(() => parseLanguagesFile('{ "serve": [] }', SOURCE))).toEqual([
      expect.stringContaining("name at least one language"),
    ]);
  });
});
