import { create } from "@bufbuild/protobuf";
import { AnswerStatusSchema, ServerState } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { positionFrom, statusFrom } from "./shared.js";

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
      value: { name: "parse", lineHint: 0, occurrence: 0 },
    });
    expect(positionFrom({ file: "a.py", symbol: "parse", line: 12, occurrence: 2 }).target).toEqual({
      case: "symbol",
      value: { name: "parse", lineHint: 12, occurrence: 2 },
    });
  });

  test.each([
    [{ file: "a.ts" }, /give line and column .* or symbol/],
    [{ file: "a.ts", line: 3 }, /give line and column .* or symbol/],
    [{ file: "a.ts", column: 3 }, /column needs line/],
    [{ file: "a.ts", line: 1, column: 3, symbol: "x" }, /either column or symbol, not both/],
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
