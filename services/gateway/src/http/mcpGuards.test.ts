import type { ServerResponse } from "node:http";
import { expect, test } from "vitest";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./mcpGuards.js";
import { writeRefusal } from "./refusals.js";

test("nesting is measured without recursion, however deep (a body 100 000 levels deep)", () => {
  const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
  expect(nestedDeeperThan(deep, MAX_JSON_DEPTH)).toBe(true);
  // A tool call's arguments nest about 8 levels (apply_workspace_edit's ranges).
  const call = { params: { arguments: { edit: { files: [{ edits: [{ range: { start: { line: 1 } } }] }] } } } };
  expect(nestedDeeperThan(call, MAX_JSON_DEPTH)).toBe(false);
  expect(nestedDeeperThan(call, 8)).toBe(true);
  expect(nestedDeeperThan("text", 0)).toBe(false);
  expect(nestedDeeperThan(undefined, 0)).toBe(false);
});

test("a body nested too deep is answered 400 with a JSON-RPC parse error naming the limit", async () => {
  let status = 0;
  let body = "";
  const res = {
    writeHead(code: number) {
      status = code;
      return this;
    },
    end(text: string) {
      body = text;
    },
  } as unknown as ServerResponse;
  await writeRefusal(res, { kind: "too_deep", limit: MAX_JSON_DEPTH }, () => "");
  expect(status).toBe(400);
  expect(JSON.parse(body)).toEqual({
    jsonrpc: "2.0",
    error: { code: -32_700, message: "Parse error: the JSON nests deeper than 64 levels" },
    id: null,
  });
});
