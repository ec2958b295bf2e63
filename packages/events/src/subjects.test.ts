import { expect, test } from "vitest";
import { decodeFileKey, diagnosticsSubject, fileKey } from "./subjects.js";

test("file keys are single NATS tokens and decode back", () => {
  for (const path of ["src/a.ts", "src/dir.with.dots/x y.ts", "日本/🎉.py", "a/>/*.ts"]) {
    const key = fileKey(path);
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeFileKey(key)).toBe(path);
  }
  expect(diagnosticsSubject("acme", "web", "src/a.ts").split(".")).toHaveLength(5);
});
