import { expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import type { Declaration, NameResolution } from "../../symbols/declarationLookup.js";
import { namedPosition } from "./namedPosition.js";
import type { AnswerStatusOutput } from "./shared.js";

const none: NameResolution = { outcome: "none", similar: [] };

function notFoundMessage(status: AnswerStatusOutput, settling: boolean): string {
  try {
    namedPosition("parseConfig", "default", none, { status, settling });
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    // Still filling in: the code says to retry, not that the name does not exist.
    expect((error as GatewayError).code).toBe(status.partial && settling ? "SERVER_STARTING" : "NOT_FOUND");
    return (error as GatewayError).message;
  }
  throw new Error("expected NOT_FOUND or SERVER_STARTING");
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

test("declarations passed over for their kind are all counted, those beyond the three named too", () => {
  // Textualize/rich: `divide` is a function in rich/logging.py and a method of five classes.
  const declaration = (container: string | undefined, file: string, line: number): Declaration =>
    ({
      workspace: "default",
      file,
      language: "python",
      origin: "lsp-document-symbol",
      match: 0,
      symbol: {
        name: "divide",
        kind: container ? "method" : "function",
        ...(container ? { container } : {}),
        line,
        column: 9,
        endLine: line,
        endColumn: 15,
        exported: false,
        snippet: "def divide(",
      },
    }) as Declaration;
  const methods = ["Splitter", "RowSplitter", "ColumnSplitter", "Segment", "Text"].map((container, i) =>
    declaration(container, `rich/m${i}.py`, 10 + i),
  );
  const resolution: NameResolution = {
    outcome: "unique",
    declaration: declaration(undefined, "rich/logging.py", 283),
    passedOver: methods,
  };
  const complete: AnswerStatusOutput = { state: "ready", partial: false, language: "", server: "symbol index" };
  const named = namedPosition("divide", "default", resolution, { status: complete, settling: false });
  if (named.outcome !== "resolved") throw new Error("expected resolved");
  expect(named.preface).toContain(
    "5 other declarations of that name, of other kinds, passed over (method divide (in Splitter)",
  );
  expect(named.preface).toContain(
    "; … and 2 more: find_symbol lists them); pass file (and line) to ask about one of them.",
  );
});
