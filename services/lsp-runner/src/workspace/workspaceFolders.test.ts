import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { landlockAbi } from "../confinement/landlock.js";
import { removeConfined, TRASH_FOLDER, WorkspaceFolders } from "./workspaceFolders.js";

let root: string;
let canary: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-folders-"));
  mkdirSync(join(root, "globex", "shop"), { recursive: true });
  canary = join(root, "globex", "shop", "canary.txt");
  writeFileSync(canary, "GLOBEX");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("WorkspaceFolders", () => {
  test("create makes the tenant's and the workspace's folders once; a link in its place is left alone", async () => {
    const folders = new WorkspaceFolders(root);
    expect(await folders.create("acme", "task-1")).toBe("created");
    expect(lstatSync(join(root, "acme", "task-1")).isDirectory()).toBe(true);
    expect(await folders.create("acme", "task-1")).toBe("exists");
    symlinkSync(join(root, "globex", "shop"), join(root, "acme", "task-2"));
    await expect(folders.create("acme", "task-2")).rejects.toThrow(/not a folder/);
  });

  test("remove deletes the workspace and follows no link inside it or in its place", async () => {
    const folders = new WorkspaceFolders(root);
    const task = join(root, "acme", "task-1");
    mkdirSync(join(task, "src", "deep"), { recursive: true });
    writeFileSync(join(task, "src", "deep", "a.ts"), "export {}");
    symlinkSync(join(root, "globex", "shop"), join(task, "src", "other-tenant"));
    symlinkSync(canary, join(task, "canary-link.txt"));
    expect(await folders.remove("acme", "task-1")).toBe("removed");
    expect(existsSync(task)).toBe(false);
    expect(readFileSync(canary, "utf8")).toBe("GLOBEX");
    expect(await folders.remove("acme", "task-1")).toBe("absent");
    // The trash holds nothing once done.
    expect(existsSync(join(root, TRASH_FOLDER))).toBe(true);
    // A link named as the workspace: the link goes, never its target.
    symlinkSync(join(root, "globex", "shop"), task);
    expect(await folders.remove("acme", "task-1")).toBe("removed");
    expect(readFileSync(canary, "utf8")).toBe("GLOBEX");
  });

  test("a tenant folder that is a link is refused", async () => {
    symlinkSync(join(root, "globex"), join(root, "acme"));
    const folders = new WorkspaceFolders(root);
    await expect(folders.remove("acme", "shop")).rejects.toThrow(/not a folder/);
    await expect(folders.create("acme", "x")).rejects.toThrow(/not a folder/);
    expect(readFileSync(canary, "utf8")).toBe("GLOBEX");
  });
});

describe.skipIf(landlockAbi() === 0)("the confined removal", () => {
  test("reaches nothing outside the trash folder (control: the same path inside it is removed)", async () => {
    const trash = join(root, TRASH_FOLDER);
    mkdirSync(trash);
    await expect(removeConfined(join(root, "globex", "shop"), trash)).rejects.toThrow(/failed/);
    expect(readFileSync(canary, "utf8")).toBe("GLOBEX");
    mkdirSync(join(trash, "x", "y"), { recursive: true });
    await removeConfined(join(trash, "x"), trash);
    expect(existsSync(join(trash, "x"))).toBe(false);
  });
});
