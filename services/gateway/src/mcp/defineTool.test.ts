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

test("valid arguments parse", () => {
  expect(parseArguments(schema, { file: "a.ts", line: 1, column: 2 })).toEqual({ file: "a.ts", line: 1, column: 2 });
});

test("unknown arguments are refused, naming them and the accepted ones", () => {
  const error = failure({ file: "a.ts", line: 1, column: 2, text: "broken", wait: 5 });
  expect(error.code).toBe("INVALID_ARGUMENT");
  expect(error.message).toContain("unknown arguments: text, wait");
  expect(error.message).toMatch(/accepted: .*file.*line.*column/);
});

test("unknown fields inside nested objects and arrays are refused with their path", () => {
  const nested = z.object({
    edit: z.object({ files: z.array(z.object({ file: z.string(), edits: z.array(z.object({ line: z.number() })) })) }),
    options: z.record(z.string(), z.unknown()).optional(),
  });
  try {
    parseArguments(nested, { edit: { files: [{ file: "a", edits: [{ line: 1, colum: 2 }] }] }, options: { any: 1 } });
    throw new Error("expected a refusal");
  } catch (error) {
    expect((error as GatewayError).message).toContain("unknown field in edit.files.0.edits.0: colum (accepted: line)");
    // Record keys are data, not arguments.
    expect((error as GatewayError).message).not.toContain("any");
  }
});

test("schema failures are INVALID_ARGUMENT naming each field", () => {
  const error = failure({ file: "", line: 0, column: 1.5 });
  expect(error.code).toBe("INVALID_ARGUMENT");
  expect(error.message).toContain("file must not be empty");
  expect(error.message).toContain("line is 1-based: the first line is 1");
  expect(error.message).toContain("column must be a whole number");
});

test("a missing required field is named as required, not as a type error", () => {
  expect(failure({ line: 1, column: 1 }).message).toBe("invalid arguments: file is required (string)");
  expect(failure(undefined).message).toBe("invalid arguments: file is required (string)");
});

test("any workspace name parses: the resolver answers unknown, forged and foreign ones alike (NOT_FOUND)", () => {
  expect(parseArguments(schema, { file: "a.ts", workspace: "../globex/shop" })).toMatchObject({
    workspace: "../globex/shop",
  });
  expect(failure({ file: "a.ts", workspace: "" }).message).toMatch(/workspace must not be empty/);
});
