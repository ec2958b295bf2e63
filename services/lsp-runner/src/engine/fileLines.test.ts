import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { RACY_WINDOW_MS } from "../workspace/metadata.js";
import { WorkspacePaths } from "../workspace/workspacePaths.js";
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

describe("FileLines.workspaceFile", () => {
  let base: string;
  let paths: WorkspacePaths;
  /** A session whose content epoch the test moves. */
  let owner: LanguageSession & { contentEpoch: number };
  const judge = (file: string) => new FileLines(owner).workspaceFile(paths, join(paths.root, file));

  beforeEach(async () => {
    base = mkdtempSync(join(tmpdir(), "lspmesh-judged-"));
    mkdirSync(join(base, "ws/src"), { recursive: true });
    mkdirSync(join(base, "outside/src"), { recursive: true });
    writeFileSync(join(base, "ws/src/a.ts"), "export const a = 1;\n");
    writeFileSync(join(base, "outside/src/a.ts"), "export const a = 1;\n");
    writeFileSync(join(base, "outside/secret.ts"), "export const secret = 42;\n");
    symlinkSync(join(base, "outside/secret.ts"), join(base, "ws/src/leak.ts"));
    paths = await WorkspacePaths.open(join(base, "ws"));
    owner = { document: () => undefined, contentEpoch: 0 } as unknown as LanguageSession & { contentEpoch: number };
    await pastRacyWindow();
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("remembers a judgement while the epoch holds and the path leads to the same file", async () => {
    expect(await judge("src/a.ts")).toBe("src/a.ts");
    expect(await judge("src/leak.ts")).toBeUndefined();
    // The folder moved out whole and linked back: the very file judged (same inode and times),
    // so the remembered judgement stands (it is the workspace's own file) until the epoch moves.
    renameSync(join(base, "ws/src"), join(base, "outside/moved"));
    symlinkSync(join(base, "outside/moved"), join(base, "ws/src"));
    expect(await judge("src/a.ts")).toBe("src/a.ts");
    expect(await judge("src/leak.ts")).toBeUndefined();
    owner.contentEpoch++;
    expect(await judge("src/a.ts")).toBeUndefined();
  });

  it("a file swapped for a symlink to outside is judged again and refused, the epoch unmoved", async () => {
    expect(await judge("src/a.ts")).toBe("src/a.ts");
    rmSync(join(base, "ws/src/a.ts"));
    symlinkSync(join(base, "outside/src/a.ts"), join(base, "ws/src/a.ts"));
    expect(await judge("src/a.ts")).toBeUndefined();
  });

  it("a folder on the path swapped for a symlink to outside is judged again and refused", async () => {
    expect(await judge("src/a.ts")).toBe("src/a.ts");
    renameSync(join(base, "ws/src"), join(base, "ws/old"));
    symlinkSync(join(base, "outside/src"), join(base, "ws/src"));
    expect(await judge("src/a.ts")).toBeUndefined();
    // And back: the workspace's own file again.
    rmSync(join(base, "ws/src"));
    renameSync(join(base, "ws/old"), join(base, "ws/src"));
    expect(await judge("src/a.ts")).toBe("src/a.ts");
  });

  it("a symlink to outside replaced by a file of the workspace is the workspace's", async () => {
    expect(await judge("src/leak.ts")).toBeUndefined();
    rmSync(join(base, "ws/src/leak.ts"));
    writeFileSync(join(base, "ws/src/leak.ts"), "export const secret = 0;\n");
    expect(await judge("src/leak.ts")).toBe("src/leak.ts");
  });

  it("a file changed within the racy window is not remembered; a gone file is judged by its path", async () => {
    writeFileSync(join(base, "ws/src/new.ts"), "x\n");
    expect(await judge("src/new.ts")).toBe("src/new.ts");
    renameSync(join(base, "ws/src"), join(base, "outside/moved"));
    symlinkSync(join(base, "outside/moved"), join(base, "ws/src"));
    // Not remembered (changed just now): judged afresh, outside.
    expect(await judge("src/new.ts")).toBeUndefined();
    expect(await judge("src/gone.ts")).toBe("src/gone.ts");
    expect(await new FileLines(owner).workspaceFile(paths, join(base, "outside/secret.ts"))).toBeUndefined();
  });
});
