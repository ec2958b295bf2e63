import { expect, test } from "vitest";
import { distinctNotes } from "./distinctNotes.js";

test("workspace symbols from several sessions say each reason once", () => {
  // clangd's part and pyright's of one workspace: the withheld count is each part's.
  const withheld = "1 result outside your workspaces withheld";
  const cpp = `no compile_commands.json in the workspace root or build/; ${withheld}`;
  expect(distinctNotes([cpp, withheld, undefined, ""])).toBe(
    `no compile_commands.json in the workspace root or build/; ${withheld}`,
  );
});
