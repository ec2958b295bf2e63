import { expect, test } from "vitest";
import { z } from "zod";
import { GatewayError } from "../errors.js";
import { parseArguments } from "./defineTool.js";
import { positionArguments } from "./toolSupport/shared.js";

const schema = z.object(positionArguments);

function failure(args: unknown): GatewayError {
  try {
    parseArguments(schema, args);
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error("expected a GatewayError");
}

test("valid arguments parse; unknown keys are dropped", () => {
  expect(parseArguments(schema, { file: "a.ts", line: 1, column: 2, extra: true })).toEqual({
    file: "a.ts",
    line: 1,
    column: 2,
  });
});

test("schema failures are INVALID_ARGUMENT naming each field", () => {
  const error = failure({ file: "", line: 0, column: 1.5 });
  expect(error.code).toBe("INVALID_ARGUMENT");
  expect(error.message).toContain("file must not be empty");
  expect(error.message).toContain("line is 1-based: the first line is 1");
  expect(error.message).toContain("column must be a whole number");
});

test("a missing required field is named", () => {
  expect(failure({ line: 1, column: 1 }).message).toMatch(/file/);
  expect(failure(undefined).message).toMatch(/file/);
});

test("any workspace name parses: the resolver answers unknown, forged and foreign ones alike (NOT_FOUND)", () => {
  expect(parseArguments(schema, { file: "a.ts", workspace: "../globex/shop" })).toMatchObject({
    workspace: "../globex/shop",
  });
  expect(failure({ file: "a.ts", workspace: "" }).message).toMatch(/workspace must not be empty/);
});
