import { expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import type { NameResolution } from "../../symbols/declarationLookup.js";
import { namedPosition } from "./namedPosition.js";
import type { AnswerStatusOutput } from "./shared.js";

const none: NameResolution = { outcome: "none", similar: [] };

function notFoundMessage(status: AnswerStatusOutput, settling: boolean): string {
  try {
    namedPosition("parseConfig", "default", none, { status, settling });
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe("NOT_FOUND");
    return (error as GatewayError).message;
  }
  throw new Error("expected NOT_FOUND");
}

test("a lookup that is still filling in says to retry shortly; one that passed files over does not", () => {
  const building: AnswerStatusOutput = {
    state: "ready",
    partial: true,
    language: "",
    server: "symbol index",
    note: "default: its symbol index is being built (10 of 400 files)",
  };
  expect(notFoundMessage(building, true)).toContain(
    "the lookup is not complete (default: its symbol index is being built (10 of 400 files)), so retry shortly;",
  );
  const passedOver: AnswerStatusOutput = {
    state: "ready",
    partial: true,
    language: "",
    server: "symbol index",
    note: "default: 1 file over the size limit was not indexed (src/huge.py)",
  };
  const message = notFoundMessage(passedOver, false);
  expect(message).toContain("the lookup is not complete (default: 1 file over the size limit");
  expect(message).not.toContain("retry shortly");
});

test("a complete lookup names no gap", () => {
  const complete: AnswerStatusOutput = { state: "ready", partial: false, language: "", server: "symbol index" };
  expect(notFoundMessage(complete, false)).toBe(
    "no declaration named 'parseConfig' in workspace 'default'; check the spelling, give file with symbol to point at it in a file, or use search_text to find it as text",
  );
});
