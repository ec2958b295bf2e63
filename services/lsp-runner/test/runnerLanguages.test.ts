// Languages from a real languages file: the native TypeScript 7 server opted into, and servers that
// are missing, not executable or exit at start, each failing with a clear error while the runner
// keeps serving.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GrpcStatus } from "@lspmesh/grpc";
import { ServerState } from "@lspmesh/proto";
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageConfigError, type LanguageRegistry, loadLanguageRegistry } from "./runnerInternals.js";
import { at, failure, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let configDir: string;

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), "lspmesh-languages-"));
});

afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
});

function languagesFile(name: string, content: unknown): string {
  const path = join(configDir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

describe("the languages file", () => {
  test("an invalid file is refused with every bad field named", async () => {
    const path = languagesFile("bad.json", { languages: { go: { args: [1] }, lua: { command: "lua-ls" } } });
    const error = await loadLanguageRegistry(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LanguageConfigError);
    expect((error as LanguageConfigError).message).toBe(
      `languages file ${path} is invalid:\n  - languages.go.args[0]: Invalid input: expected string, received number`,
    );
    const unmerged = languagesFile("new.json", { languages: { lua: { command: "lua-ls" } } });
    await expect(loadLanguageRegistry(unmerged)).rejects.toThrow(/languages\.lua: a new language needs "extensions"/);
    await expect(loadLanguageRegistry(join(configDir, "missing.json"))).rejects.toThrow(/cannot be read \(ENOENT\)/);
  });

  test("without a file the built-in languages are served", async () => {
    const registry = await loadLanguageRegistry();
    expect(registry.languages.map((l) => l.id)).toEqual(["typescript", "python", "go", "cpp", "rust"]);
    expect(registry.installed().map((l) => l.id)).toEqual(expect.arrayContaining(["typescript", "python"]));
  });
});

// In `npm run test:faults`; `npm test` asks the native server through serve and a cluster (e2e
// serveLanguages, clusterLanguages).
describe.runIf(isFaultsTier())("native TypeScript 7 (tsc --lsp --stdio), opted into by the languages file", () => {
  let env: FixtureRunner;

  beforeAll(async () => {
    const path = languagesFile("typescript7.json", {
      languages: { typescript: { enabled: false }, "typescript-native": { enabled: true } },
    });
    env = await startFixtureRunner({ fixture: "typescript-basic", languages: await loadLanguageRegistry(path) });
  });

  afterAll(async () => {
    await env?.close();
  });

  test("definition on a line with CJK and emoji, from the native server", async () => {
    const answer = await env.client.findDefinition({ workspace: ws, at: symbol("src/main.ts", "makeGreeting", 4) });
    expect(answer.status).toMatchObject({ language: "typescript-native", state: ServerState.READY });
    expect(answer.status?.server).toMatch(/^typescript-go 7\./);
    expect(answer.status?.resolved).toMatchObject({ line: 4, column: 37 });
    expect(places(answer.locations)).toEqual(["src/greeter.ts:14:17"]);
  });

  test("references, hover and document symbols", async () => {
    const references = await env.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.ts", "makeGreeting", 14),
      includeDeclaration: true,
    });
    expect(places(references.locations)).toEqual(
      [
        "src/broken.ts:1:10",
        "src/broken.ts:3:30",
        "src/greeter.ts:14:17",
        "src/main.ts:1:10",
        "src/main.ts:4:37",
        "src/main.ts:4:76",
        "src/main.ts:6:30",
      ].sort(),
    );
    const hover = await env.client.hover({ workspace: ws, at: symbol("src/main.ts", "wave", 4) });
    expect(hover.contents).toContain("const wave: string");
    const symbols = await env.client.documentSymbols({ workspace: ws, file: "src/greeter.ts" });
    expect(symbols.symbols.find((s) => s.name === "PoliteGreeter")?.children.map((c) => c.name)).toEqual(["greet"]);
  });
});

describe("servers that cannot start fail clearly and the runner keeps serving", () => {
  let env: FixtureRunner;
  let registry: LanguageRegistry;

  beforeAll(async () => {
    const notExecutable = join(configDir, "not-executable-server");
    writeFileSync(notExecutable, "#!/bin/sh\n");
    chmodSync(notExecutable, 0o644);
    // rustup's proxy, installed as rust-analyzer, on a toolchain without the rust-analyzer component.
    const proxyBin = join(configDir, "proxy-bin");
    mkdirSync(proxyBin);
    writeFileSync(
      join(proxyBin, "rustup"),
      "#!/bin/sh\necho \"error: unknown binary '$2' in toolchain 'stable-x86_64-unknown-linux-gnu'\" >&2\nexit 1\n",
    );
    chmodSync(join(proxyBin, "rustup"), 0o755);
    symlinkSync("rustup", join(proxyBin, "rust-analyzer"));
    const path = languagesFile("broken-servers.json", {
      languages: {
        rust: { env: { PATH: proxyBin } },
        // The built-in Go entry with a PATH where gopls cannot be: as on a runner without Go.
        go: { env: { PATH: "/nonexistent" } },
        missing: { extensions: { ".missing": "missing" }, command: "lspmesh-no-such-server" },
        locked: { extensions: { ".locked": "locked" }, command: notExecutable },
        crashing: {
          extensions: { ".crash": "crash" },
          command: process.execPath,
          args: ["-e", "process.stderr.write('cannot read settings\\n'); process.exit(3)"],
        },
      },
    });
    registry = await loadLanguageRegistry(path);
    env = await startFixtureRunner({ fixture: "typescript-basic", languages: registry });
    for (const file of ["src/main.go", "src/a.missing", "src/a.locked", "src/a.crash", "src/lib.rs"]) {
      writeFileSync(join(env.dir, file), "text\n");
    }
  });

  afterAll(async () => {
    await env?.close();
  });

  test("a built-in server that is not installed: NO_LANGUAGE_SERVER with how to install it", async () => {
    const error = await failure(env.client.hover({ workspace: ws, at: at("src/main.go", 1, 1) }));
    expect(error.code).toBe(GrpcStatus.FAILED_PRECONDITION);
    expect(error.metadata.get("lspmesh-error-code")).toEqual(["NO_LANGUAGE_SERVER"]);
    expect(error.details).toBe(
      "the go language server is not installed on this runner: command 'gopls' was not found. To serve .go files, install gopls and Go (Debian: apt-get install gopls golang-go; or go install golang.org/x/tools/gopls@latest), or set its \"command\" in the languages file (LSPMESH_LANGUAGES_FILE, or lspmesh serve --languages FILE; see docs/languages.md)",
    );
  });

  test("a configured command that does not exist or is not executable: NO_LANGUAGE_SERVER", async () => {
    const missing = await failure(env.client.hover({ workspace: ws, at: at("src/a.missing", 1, 1) }));
    expect(missing.metadata.get("lspmesh-error-code")).toEqual(["NO_LANGUAGE_SERVER"]);
    expect(missing.details).toMatch(
      /^the missing language server is not installed on this runner: command 'lspmesh-no-such-server' was not found\. To serve \.missing files, install lspmesh-no-such-server, or set its "command"/,
    );
    const locked = await failure(env.client.hover({ workspace: ws, at: at("src/a.locked", 1, 1) }));
    expect(locked.metadata.get("lspmesh-error-code")).toEqual(["NO_LANGUAGE_SERVER"]);
    expect(locked.details).toContain("command 'not-executable-server' could not be started (EACCES)");
    expect(locked.details).not.toContain(configDir);
  });

  test("rustup's proxy without the component: NO_LANGUAGE_SERVER with rustup's words, not served", async () => {
    const error = await failure(env.client.hover({ workspace: ws, at: at("src/lib.rs", 1, 1) }));
    expect(error.metadata.get("lspmesh-error-code")).toEqual(["NO_LANGUAGE_SERVER"]);
    expect(error.details).toMatch(
      /^the rust language server is not installed on this runner: command 'rust-analyzer' is rustup's proxy, and rustup says: unknown binary 'rust-analyzer' in toolchain 'stable-x86_64-unknown-linux-gnu'\. To serve \.rs files, install rust-analyzer \(rustup component add rust-analyzer/,
    );
    expect(registry.installed().map((language) => language.id)).not.toContain("rust");
    expect(registry.found().map((language) => language.id)).toContain("rust");
  });

  test("a server that exits during start: SERVER_FAILED with its last words, at once and again", async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failure(env.client.hover({ workspace: ws, at: at("src/a.crash", 1, 1) }));
      expect(error.code).toBe(GrpcStatus.INTERNAL);
      expect(error.metadata.get("lspmesh-error-code")).toEqual(["SERVER_FAILED"]);
      // The facts that matter, whatever the wording: which server, its exit code, its last words.
      expect(error.details).toMatch(/^the crashing language server .*code 3.*cannot read settings/);
    }
  });

  test("the runner still answers for the languages that work, and leaves no process behind", async () => {
    const answer = await env.client.hover({ workspace: ws, at: symbol("src/main.ts", "wave", 4) });
    expect(answer.contents).toContain("const wave: string");
    const pids = await env.runner.sessions.pids();
    expect(pids).toHaveLength(1);
    await env.runner.close();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});

test("whole-workspace diagnostics skip files whose server is not installed, and say so", async () => {
  const path = languagesFile("no-go.json", { languages: { go: { env: { PATH: "/nonexistent" } } } });
  await using env = await startFixtureRunner({ fixture: "python-basic", languages: await loadLanguageRegistry(path) });
  writeFileSync(join(env.dir, "src/tool.go"), "package main\n");
  const answer = await env.client.diagnostics({ workspace: ws, files: [], waitMs: 15_000 });
  expect(answer.files.map((f) => f.file).sort()).toEqual(["src/broken.py", "src/greeter.py", "src/main.py"]);
  expect(answer.files.find((f) => f.file === "src/broken.py")?.diagnostics.map((d) => d.code)).toEqual([
    "reportAssignmentType",
  ]);
  expect(answer.status?.partial).toBe(true);
  expect(answer.status?.note).toContain(
    "1 .go file(s) not checked: no language server for them is installed on this runner",
  );
});

test("whole-workspace diagnostics: a binary or oversized file is skipped and named, the rest still checked", async () => {
  await using env = await startFixtureRunner({
    fixture: "python-basic",
    languages: await loadLanguageRegistry(undefined),
  });
  // Both sort before the real modules, as the files that broke whole-workspace calls did.
  writeFileSync(join(env.dir, "src/aa_blob.py"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
  writeFileSync(join(env.dir, "src/ab_huge.py"), `x = 1\n${"# filler\n".repeat(600_000)}`);
  const answer = await env.client.diagnostics({ workspace: ws, files: [], waitMs: 15_000 });
  expect(answer.files.map((f) => f.file).sort()).toEqual(["src/broken.py", "src/greeter.py", "src/main.py"]);
  expect(answer.files.find((f) => f.file === "src/broken.py")?.diagnostics.map((d) => d.code)).toEqual([
    "reportAssignmentType",
  ]);
  expect(answer.status?.partial).toBe(true);
  expect(answer.status?.note).toMatch(/2 file\(s\) skipped: src\/aa_blob\.py \(.*binary.*\); src\/ab_huge\.py \(.*MiB/);
});
