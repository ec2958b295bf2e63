import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { RACY_WINDOW_MS } from "../workspace/metadata.js";
import { FileLines } from "./fileLines.js";

/** A session with no open documents: every file is read from disk. */
const session = () => ({ document: () => undefined }) as unknown as LanguageSession;
const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 50));

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function file(text: string): string {
  dir ??= mkdtempSync(join(tmpdir(), "lspmesh-filelines-"));
  const path = join(dir, "a.ts");
  writeFileSync(path, text);
  return path;
}

describe("FileLines", () => {
  it("reads a file once per session while its stamp stays, and again once it changed", async () => {
    const owner = session();
    const path = file("const a = 1;\nconst b = 2;\n");
    await pastRacyWindow();
    const first = await new FileLines(owner).snapshot(path);
    expect(first.lines).toEqual(["const a = 1;", "const b = 2;", ""]);
    // Another request of the same session: the same snapshot, not read again.
    expect(await new FileLines(owner).snapshot(path)).toBe(first);
    // Same size, new content: the stamp (mtime, ctime) moved, so it is read again.
    writeFileSync(path, "const a = 3;\nconst b = 4;\n");
    const changed = await new FileLines(owner).snapshot(path);
    expect(changed.lines).toEqual(["const a = 3;", "const b = 4;", ""]);
    expect(changed.sha256).not.toBe(first.sha256);
  });

  it("does not remember a file read within the racy window of its last change", async () => {
    const owner = session();
    const path = file("x\n");
    const first = await new FileLines(owner).snapshot(path);
    const second = await new FileLines(owner).snapshot(path);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
  });

  it("keeps what one session read to that session", async () => {
    const path = file("x\n");
    await pastRacyWindow();
    const first = await new FileLines(session()).snapshot(path);
    expect(await new FileLines(session()).snapshot(path)).not.toBe(first);
  });
});
