import { describe, expect, it } from "vitest";
import type { WorkspaceEdit } from "./answers.js";
import { keptNameNote } from "./renameAliases.js";

const at = (line: number, column: number) => ({ start: { line, column }, end: { line, column: column + 3 } });
const editOf = (...edits: Array<[string, number, string]>): WorkspaceEdit => ({
  files: [...new Set(edits.map(([file]) => file))].map((file) => ({
    file,
    edits: edits.filter(([f]) => f === file).map(([, line, newText]) => ({ range: at(line, 1), newText })),
    expectedVersion: 0,
    expectedSha256: "",
  })),
  operations: [],
});

describe("keptNameNote", () => {
  it("names the edits that write the old name beside the new one", () => {
    const edit = editOf(["a.ts", 1, "fresh"], ["a.ts", 5, "fresh as old"], ["b.ts", 2, "old: fresh"]);
    expect(keptNameNote(edit, "old", "fresh")).toMatch(
      /^2 edits keep the old name 'old' through an alias \(a\.ts:5:1 "fresh as old", b\.ts:2:1 "old: fresh"\), as the language server/,
    );
  });

  it("is silent for plain renames and for the old name inside a longer identifier", () => {
    expect(keptNameNote(editOf(["a.ts", 1, "fresh"], ["b.ts", 3, "fresh"]), "old", "fresh")).toBeUndefined();
    expect(keptNameNote(editOf(["a.ts", 1, "fresh as folder"]), "old", "fresh")).toBeUndefined();
  });

  it("lists three examples and counts the rest", () => {
    const edit = editOf(...[1, 2, 3, 4, 5].map((line): [string, number, string] => ["a.ts", line, "n as o"]));
    expect(keptNameNote(edit, "o", "n")).toContain('a.ts:3:1 "n as o", … (2 more))');
  });
});
