import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { commandProblem, findExecutable } from "./commandLookup.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lspmesh-commands-"));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "server"), "#!/bin/sh\n");
  chmodSync(join(dir, "bin", "server"), 0o755);
  writeFileSync(join(dir, "bin", "plain"), "not a program\n");
  chmodSync(join(dir, "bin", "plain"), 0o644);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("bare names are looked up in the absolute PATH directories only", () => {
  expect(findExecutable("server", `/nonexistent:${join(dir, "bin")}`)).toBe(join(dir, "bin", "server"));
  expect(findExecutable("server", "bin")).toBeUndefined();
  expect(findExecutable("server", undefined)).toBeUndefined();
  expect(findExecutable("plain", join(dir, "bin"))).toBeUndefined();
});

test("absolute paths are taken as they are; relative paths never", () => {
  expect(findExecutable(join(dir, "bin", "server"), "")).toBe(join(dir, "bin", "server"));
  expect(findExecutable("./bin/server", join(dir, "bin"))).toBeUndefined();
  expect(findExecutable(join(dir, "bin"), "")).toBeUndefined();
});

test("the problem is ENOENT for a missing command and EACCES for a file that is not executable", () => {
  expect(commandProblem("server", join(dir, "bin"))).toBeUndefined();
  expect(commandProblem("lspmesh-no-such-server", join(dir, "bin"))).toBe("ENOENT");
  expect(commandProblem(join(dir, "bin", "plain"), "")).toBe("EACCES");
  expect(commandProblem(join(dir, "bin", "missing"), "")).toBe("ENOENT");
});
