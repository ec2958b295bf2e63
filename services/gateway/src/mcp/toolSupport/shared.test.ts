import { create } from "@bufbuild/protobuf";
import { AnswerStatusSchema, ServerState } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { collectParts, mergeStatuses, positionFrom, statusFrom } from "./shared.js";

describe("positionFrom", () => {
  test("line and column make an exact position", () => {
    expect(positionFrom({ file: "src/a.ts", line: 3, column: 5 })).toEqual({
      file: "src/a.ts",
      target: { case: "position", value: { line: 3, column: 5 } },
    });
  });

  test("symbol with an optional line hint and occurrence makes a symbol target (0 = not given)", () => {
    expect(positionFrom({ file: "a.py", symbol: "parse" }).target).toEqual({
      case: "symbol",
      value: { name: "parse", lineHint: 0, occurrence: 0, columnHint: 0 },
    });
    expect(positionFrom({ file: "a.py", symbol: "parse", line: 12, occurrence: 2 }).target).toEqual({
      case: "symbol",
      value: { name: "parse", lineHint: 12, occurrence: 2, columnHint: 0 },
    });
  });

  test("column and symbol together: the symbol with the line and column as hints", () => {
    expect(positionFrom({ file: "a.ts", line: 4, column: 9, symbol: "greet" }).target).toEqual({
      case: "symbol",
      value: { name: "greet", lineHint: 4, occurrence: 0, columnHint: 9 },
    });
  });

  test.each([
    [{ file: "a.ts" }, /give line and column .* or symbol/],
    [{ file: "a.ts", line: 3 }, /give line and column .* or symbol/],
    [{ file: "a.ts", column: 3 }, /column needs line/],
    [{ file: "a.ts", column: 3, symbol: "x" }, /column needs line: give line too/],
    [{ file: "a.ts", line: 1, column: 3, symbol: "x", occurrence: 2 }, /column or occurrence .* not both/],
    [{ file: "a.ts", line: 1, column: 3, occurrence: 2 }, /occurrence only applies with symbol/],
  ])("%j is INVALID_ARGUMENT", (args, message) => {
    let error: unknown;
    try {
      positionFrom(args);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(message) });
  });
});

describe("statusFrom", () => {
  test("copies state, language, server, partial, note and the resolved position", () => {
    const status = create(AnswerStatusSchema, {
      state: ServerState.INDEXING,
      language: "python",
      server: "pyright 1.1",
      partial: true,
      note: "indexing 40%",
      resolved: { line: 7, column: 9 },
    });
    expect(statusFrom(status)).toEqual({
      state: "indexing",
      language: "python",
      server: "pyright 1.1",
      partial: true,
      note: "indexing 40%",
      resolved: { line: 7, column: 9 },
    });
  });

  test("a missing status is never reported as ready", () => {
    expect(statusFrom(undefined)).toMatchObject({ state: "degraded", partial: false });
    expect(statusFrom(undefined)).not.toHaveProperty("note");
  });
});

describe("merged answers of several language servers", () => {
  const ready = { state: "ready", partial: false, language: "typescript", server: "tsserver" } as const;
  test("the least ready state wins; partial when any part is partial or missing", () => {
    const indexing = {
      ...ready,
      state: "indexing",
      partial: true,
      language: "python",
      server: "pyright",
      note: "3/9",
    } as const;
    expect(mergeStatuses([ready, indexing])).toEqual({
      state: "indexing",
      partial: true,
      language: "typescript, python",
      server: "tsserver, pyright",
      note: "3/9",
    });
    expect(mergeStatuses([ready], ["python not answered (UNAVAILABLE: down)"])).toMatchObject({
      state: "ready",
      partial: true,
      note: "python not answered (UNAVAILABLE: down)",
    });
    expect(mergeStatuses([])).toMatchObject({ state: "degraded", partial: true });
  });

  test("a reason two parts share is said once", () => {
    const withheld = "6 results outside your workspaces withheld";
    const cpp = { ...ready, partial: true, language: "cpp", note: `${withheld}; no compile_commands.json` } as const;
    expect(mergeStatuses([cpp, { ...cpp, note: withheld }]).note).toBe(`${withheld}; no compile_commands.json`);
  });

  test("collectParts: some answered = answers plus notes; none answered = the first error", () => {
    const down = new GatewayError("UNAVAILABLE", "down");
    expect(
      collectParts([
        { languages: ["typescript"], answer: 1 },
        { languages: ["python"], error: down },
      ]),
    ).toEqual({
      answers: [1],
      missing: ["python not answered (UNAVAILABLE: down)"],
    });
    expect(() => collectParts([{ languages: ["python"], error: down }])).toThrow(down);
  });
});
