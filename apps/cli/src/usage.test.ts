import { homedir } from "node:os";
import { expect, test } from "vitest";
import { folderToServe, parseOrigin, parsePort, UsageError } from "./usage.js";

test("ports: default when absent, 0 allowed (pick a free one), garbage refused with the range", () => {
  expect(parsePort(undefined, 7420)).toBe(7420);
  expect(parsePort("0", 7420)).toBe(0);
  expect(parsePort("8080", 7420)).toBe(8080);
  for (const bad of ["-1", "65536", "http", "80.5", ""]) {
    expect(() => parsePort(bad, 7420)).toThrow(UsageError);
  }
  expect(() => parsePort("99999", 7420)).toThrow(/use 0–65535/);
});

test("--allow-origin takes a browser origin only, normalized", () => {
  expect(parseOrigin("http://localhost:5173")).toBe("http://localhost:5173");
  expect(parseOrigin("https://app.example.com/")).toBe("https://app.example.com");
  for (const bad of ["localhost:5173", "ftp://localhost", "http://localhost:5173/page", "*"]) {
    expect(() => parseOrigin(bad), bad).toThrow(/give a browser origin such as http:\/\/localhost:5173/);
  }
});

test("without a folder the current one is served, but never / or the home folder", () => {
  const cwd = process.cwd();
  try {
    expect(folderToServe("some/dir", "serve")).toEqual({ dir: `${cwd}/some/dir`, implicit: false });
    expect(folderToServe(undefined, "serve")).toEqual({ dir: cwd, implicit: true });
    for (const dir of ["/", homedir()]) {
      process.chdir(dir);
      expect(() => folderToServe(undefined, "serve")).toThrow(/name the project to serve/);
      expect(folderToServe(dir, "serve").implicit).toBe(false);
    }
  } finally {
    process.chdir(cwd);
  }
});
