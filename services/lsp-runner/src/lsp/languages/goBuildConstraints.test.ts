import { describe, expect, it } from "vitest";
import { evaluate, goBuildExclusion } from "./goBuildConstraints.js";

const linux = { os: "linux", arch: "amd64" };

describe("goBuildExclusion", () => {
  it("leaves out files for another system or architecture by name", () => {
    expect(goBuildExclusion("pkg/term_windows.go", "package pkg\n", linux)).toBe(
      "its name (_windows) leaves it out on linux/amd64",
    );
    expect(goBuildExclusion("asm_arm64.go", "package pkg\n", linux)).toContain("(_arm64)");
    expect(goBuildExclusion("x_darwin_amd64_test.go", "package pkg\n", linux)).toContain("(_darwin_amd64)");
    expect(goBuildExclusion("term_linux.go", "package pkg\n", linux)).toBeUndefined();
    expect(goBuildExclusion("x_linux_amd64.go", "package pkg\n", linux)).toBeUndefined();
    expect(goBuildExclusion("mux_test.go", "package chi\n", linux)).toBeUndefined();
    expect(goBuildExclusion("windows.go", "package pkg\n", linux)).toBeUndefined();
  });

  it("reads the //go:build line above the package clause", () => {
    expect(goBuildExclusion("gen.go", "//go:build ignore\n\npackage main\n", linux)).toBe(
      "its build constraint (//go:build ignore) leaves it out on linux/amd64",
    );
    expect(
      goBuildExclusion("a.go", "// Copyright\n\n//go:build !windows && (amd64 || arm64)\n\npackage a\n", linux),
    ).toBeUndefined();
    expect(goBuildExclusion("a.go", "//go:build darwin || freebsd\npackage a\n", linux)).toContain("darwin || freebsd");
    expect(goBuildExclusion("a.go", "//go:build unix && go1.21\npackage a\n", linux)).toBeUndefined();
    expect(goBuildExclusion("a.go", "//go:build integration\npackage a\n", linux)).toContain("integration");
    // After the package clause it is not a constraint; a line that does not parse constrains nothing here.
    expect(goBuildExclusion("a.go", "package a\n//go:build ignore\n", linux)).toBeUndefined();
    expect(goBuildExclusion("a.go", "//go:build linux &&\npackage a\n", linux)).toBeUndefined();
  });
});

describe("evaluate", () => {
  const set = (tag: string) => tag === "a" || tag === "b";
  it("has ! over && over ||, and parentheses", () => {
    expect(evaluate("a && !c || c", set)).toBe(true);
    expect(evaluate("!(a || c)", set)).toBe(false);
    expect(evaluate("c || a && b", set)).toBe(true);
    expect(evaluate("(a", set)).toBeUndefined();
    expect(evaluate("a b", set)).toBeUndefined();
  });
});
