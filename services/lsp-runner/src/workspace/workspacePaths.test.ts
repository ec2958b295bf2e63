import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { WorkspacePaths } from "./workspacePaths.js";

const base = mkdtempSync(join(tmpdir(), "lspmesh-paths-"));
const root = join(base, "ws");
let paths: WorkspacePaths;

beforeAll(async () => {
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src/a.ts"), "export const a = 1;\n");
  writeFileSync(join(base, "secret.ts"), "secret\n");
  symlinkSync(join(base, "secret.ts"), join(root, "src/leak.ts"));
  symlinkSync(join(root, "src/a.ts"), join(root, "src/alias.ts"));
  paths = await WorkspacePaths.open(root);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

test("workspace-relative paths resolve, normalised", async () => {
  await expect(paths.resolveFile("src/./a.ts")).resolves.toMatchObject({ path: "src/a.ts", size: 20 });
  await expect(paths.resolveFile("src/../src/a.ts")).resolves.toMatchObject({ path: "src/a.ts" });
});

test("a symlink inside the workspace to a file inside it is allowed", async () => {
  await expect(paths.resolveFile("src/alias.ts")).resolves.toMatchObject({ path: "src/alias.ts" });
});

test.each(["../secret.ts", "src/../../secret.ts", "/etc/passwd", "src/leak.ts", "C:/x.ts"])(
  "%s is OUTSIDE_WORKSPACE",
  async (path) => {
    await expect(paths.resolveFile(path)).rejects.toMatchObject({ code: "OUTSIDE_WORKSPACE" });
  },
);

test("missing files, directories and empty paths are refused with their own codes", async () => {
  await expect(paths.resolveFile("src/none.ts")).rejects.toMatchObject({ code: "NOT_FOUND" });
  await expect(paths.resolveFile("src")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  await expect(paths.resolveFile("")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
});

test("server paths map back only when inside the workspace", () => {
  expect(paths.toWorkspacePath(join(paths.root, "src/a.ts"))).toBe("src/a.ts");
  expect(paths.toWorkspacePath(join(base, "secret.ts"))).toBeUndefined();
});

test("new files resolve inside the workspace, with the folders to create", async () => {
  await expect(paths.resolveNewFile("src/lib/deep/b.ts")).resolves.toEqual({
    path: "src/lib/deep/b.ts",
    absolute: join(paths.root, "src/lib/deep/b.ts"),
    missingFolders: [join(paths.root, "src/lib"), join(paths.root, "src/lib/deep")],
  });
  await expect(paths.resolveNewFile("src/b.ts")).resolves.toMatchObject({ path: "src/b.ts", missingFolders: [] });
});

test("new files are refused outside the workspace, over existing files and under files", async () => {
  symlinkSync(base, join(root, "up"));
  for (const path of ["../b.ts", "/tmp/b.ts", "up/b.ts", "up/ws/src/b.ts/../../../b.ts"]) {
    await expect(paths.resolveNewFile(path)).rejects.toMatchObject({ code: "OUTSIDE_WORKSPACE" });
  }
  await expect(paths.resolveNewFile("src/a.ts")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  await expect(paths.resolveNewFile("src/leak.ts")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  await expect(paths.resolveNewFile("src/a.ts/b.ts")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
});

test("announced paths are checked without the disk: deleted files pass, escapes do not", () => {
  expect(paths.announcedPath("src/gone.ts")).toBe(join(paths.root, "src/gone.ts"));
  expect(paths.announcedPath("./src/../src/a.ts")).toBe(join(paths.root, "src/a.ts"));
  for (const outsidePath of ["../secret.ts", "/etc/passwd", "src/../../x.ts", "C:/x.ts"]) {
    expect(() => paths.announcedPath(outsidePath)).toThrow(expect.objectContaining({ code: "OUTSIDE_WORKSPACE" }));
  }
  expect(() => paths.announcedPath("")).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
});

test("a link into a folder this process cannot see (another tenant's, under a confined worker) is OUTSIDE_WORKSPACE, not NOT_FOUND", async () => {
  // The target does not exist here, as another tenant's folder does not exist inside a worker's sandbox.
  symlinkSync(join(base, "tenant-b/src"), join(root, "src/theirs"));
  symlinkSync("../../tenant-b", join(root, "src/theirs-relative"));
  symlinkSync("theirs", join(root, "src/via-link"));
  for (const path of ["src/theirs/index.ts", "src/theirs-relative/x.ts", "src/via-link/index.ts", "src/theirs"]) {
    await expect(paths.resolveFile(path)).rejects.toMatchObject({ code: "OUTSIDE_WORKSPACE" });
    await expect(paths.resolveNewFile(path === "src/theirs" ? "src/theirs/new.ts" : path)).rejects.toMatchObject({
      code: "OUTSIDE_WORKSPACE",
    });
  }
});

test("a link to nothing inside the workspace: a missing file to read, and no folder to create a file under", async () => {
  symlinkSync(join(root, "src/not-yet"), join(root, "src/dangling"));
  await expect(paths.resolveFile("src/dangling/a.ts")).rejects.toMatchObject({ code: "NOT_FOUND" });
  await expect(paths.resolveNewFile("src/dangling/a.ts")).rejects.toMatchObject({
    code: "INVALID_ARGUMENT",
    message: expect.stringContaining("symbolic link that leads nowhere"),
  });
  symlinkSync("loop-b", join(root, "src/loop-a"));
  symlinkSync("loop-a", join(root, "src/loop-b"));
  await expect(paths.resolveFile("src/loop-a/x.ts")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
});

test("file URIs map to workspace paths only when they name a file inside", () => {
  expect(paths.pathOfUri(`file://${join(paths.root, "src/a b.ts").replaceAll(" ", "%20")}`)).toBe("src/a b.ts");
  expect(paths.pathOfUri(`file://${join(base, "secret.ts")}`)).toBeUndefined();
  expect(paths.pathOfUri("untitled:Untitled-1")).toBeUndefined();
  expect(paths.pathOfUri("file://remote-host/share/a.ts")).toBeUndefined();
});
