import { describe, expect, test } from "vitest";
import { hasWord, invalidRenameReason, wordAt } from "./identifiers.js";

test("identifiers of TypeScript and Python, Unicode included, are accepted", () => {
  for (const name of ["buildGreeting", "_x", "$el", "名前", "café", "x1"]) {
    expect(invalidRenameReason("typescript", "makeGreeting", name)).toBeUndefined();
  }
  expect(invalidRenameReason("python", "make_greeting", "построить")).toBeUndefined();
  expect(invalidRenameReason("python", "make_greeting", "$x")).toMatch(/not a valid python identifier/);
});

test("non-identifiers, reserved words and empty names are refused with the reason", () => {
  expect(invalidRenameReason("typescript", "makeGreeting", "1 bad")).toMatch(/not a valid typescript identifier/);
  expect(invalidRenameReason("typescript", "makeGreeting", "a-b")).toMatch(/not a valid/);
  expect(invalidRenameReason("typescript", "makeGreeting", "class")).toMatch(/reserved word/);
  // A file's own language id names the rule and the wording.
  expect(invalidRenameReason("javascript", "send", "class")).toBe("'class' is a reserved word in javascript");
  expect(invalidRenameReason("typescriptreact", "Button", "if")).toBe("'if' is a reserved word in typescriptreact");
  expect(invalidRenameReason("python", "make_greeting", "lambda")).toMatch(/reserved word/);
  expect(invalidRenameReason("go", "x", "")).toMatch(/empty/);
  expect(invalidRenameReason("typescript", "x", "a\nb")).toMatch(/line breaks/);
});

test("only identifiers constrain the new name; other languages are left to their server", () => {
  expect(invalidRenameReason("typescript", "some-key", "other key")).toBeUndefined();
  expect(invalidRenameReason("rust", "x", "r#type")).toBeUndefined();
});

describe("words in text", () => {
  test("the identifier around a column, in code points", () => {
    expect(wordAt("\tr := chi.NewRouter()", 11)).toBe("NewRouter");
    expect(wordAt('// — got %q", tc.out, got)', 25)).toBe("got");
    expect(wordAt("a + b", 3)).toBe("");
  });

  test("a name as a whole word, never inside a longer identifier", () => {
    expect(hasWord("r := chi.NewRouter()", "NewRouter")).toBe(true);
    expect(hasWord("r := chi.NewRouterX()", "NewRouter")).toBe(false);
    expect(hasWord("xNewRouter", "NewRouter")).toBe(false);
    expect(hasWord("café := 1", "caf")).toBe(false);
    expect(hasWord("$el = 1", "$el")).toBe(true);
  });
});
