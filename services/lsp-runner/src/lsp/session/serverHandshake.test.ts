import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cppLanguage } from "../languages/builtinLanguages.js";
import { readableVersion, ServerLoading } from "./serverHandshake.js";
import { ProgressTracker } from "./sessionState.js";

describe("readableVersion", () => {
  it("reads gopls's build info: its version and the Go it was built with", () => {
    // As Debian 12's gopls answers initialize.
    const debian =
      '{"GoVersion":"go1.19.5","Path":"golang.org/x/tools/gopls","Main":{"Path":"","Version":"","Sum":"","Replace":null},"Deps":null,"Settings":[{"Key":"-compiler","Value":"gc"}],"Version":"master"}';
    expect(readableVersion(debian)).toBe("master (go1.19.5)");
    expect(readableVersion('{"GoVersion":"go1.22.2","Main":{"Version":"v0.16.1"}}')).toBe("v0.16.1 (go1.22.2)");
    expect(readableVersion('{"GoVersion":"go1.22.2"}')).toBe("go1.22.2");
  });

  it("keeps any other version as given, JSON-looking or not", () => {
    expect(readableVersion("5.3.0 (TypeScript 5.9.3)")).toBe("5.3.0 (TypeScript 5.9.3)");
    expect(readableVersion("{not json")).toBe("{not json");
    expect(readableVersion("{}")).toBe("{}");
  });
});

describe("ServerLoading: a project database that appears while the server runs", () => {
  it("says so and names restart_language_server instead of the stale 'no compile_commands.json'", () => {
    vi.useFakeTimers();
    const root = mkdtempSync(join(tmpdir(), "lspmesh-db-"));
    try {
      const language = cppLanguage();
      const loading = new ServerLoading({
        options: { language, root },
        progress: new ProgressTracker(),
        channel: { send: async () => null } as never,
        isAlive: () => true,
        onChange: () => {},
      });
      loading.start();
      expect(loading.incompleteNote).toBe(language.indexProgress!.missingNote);
      mkdirSync(join(root, "build"));
      writeFileSync(join(root, "build", "compile_commands.json"), "[]");
      // Looked for again at most once a second.
      expect(loading.incompleteNote).toBe(language.indexProgress!.missingNote);
      vi.advanceTimersByTime(1_500);
      expect(loading.incompleteNote).toBe(
        "build/compile_commands.json appeared after the language server started: the files it opened before keep guessed flags and its index may be incomplete; call restart_language_server to load it",
      );
      loading.close();
    } finally {
      vi.useRealTimers();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
