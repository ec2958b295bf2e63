import { homedir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { goLanguage, pythonLanguage } from "../lsp/languages/builtinLanguages.js";
import { findExecutable } from "../lsp/process/commandLookup.js";
import { externalName, languageLibraryFolders } from "./externalFiles.js";

test("the languages' library folders: their read-only sandbox folders and the Go cache set in their environment", () => {
  const go = { ...goLanguage(), env: { GOMODCACHE: "/srv/gomodcache", GOROOT: "/" } };
  const folders = languageLibraryFolders([go]);
  expect(folders).toContain(`${join(homedir(), "go/pkg/mod")}/`);
  expect(folders).toContain("/srv/gomodcache/");
  // The root (or a folder one level down) would show far too much.
  expect(folders).not.toContain("/");
});

test("a file in a library folder is shown by its absolute path; elsewhere outside the workspace it is not", () => {
  const libraries = ["/srv/gomodcache/"];
  const pflag = "/srv/gomodcache/github.com/spf13/pflag@v1.0.9/flag.go";
  expect(externalName(pflag, libraries)).toBe(pflag);
  expect(externalName("/usr/include/stdio.h")).toBe("/usr/include/stdio.h");
  expect(externalName("/srv/gomodcache-other/x.go", libraries)).toBeUndefined();
  expect(externalName("/srv/gomodcache/../workspaces/b/secret.go", libraries)).toBeUndefined();
  expect(externalName("/srv/workspaces/b/secret.go", libraries)).toBeUndefined();
});

test.runIf(findExecutable("python3", process.env.PATH))(
  "pyright's language shows the standard library and site-packages of the Python it runs with",
  () => {
    const folders = languageLibraryFolders([pythonLanguage()]);
    expect(folders.some((folder) => /\/(site|dist)-packages\/$/.test(folder))).toBe(true);
    expect(folders.some((folder) => /\/python3(\.\d+)?\/$/.test(folder))).toBe(true);
  },
);
