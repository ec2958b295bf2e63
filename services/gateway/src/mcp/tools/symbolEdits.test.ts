import { create } from "@bufbuild/protobuf";
import { EditAnswerSchema, ServerState, SymbolEditRequest_Mode } from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { GatewayTool } from "../defineTool.js";
import type { ToolCall } from "../toolCall.js";
import { insertAfterSymbolTool, insertBeforeSymbolTool, replaceSymbolBodyTool } from "./symbolEdits.js";

const ready = { state: ServerState.READY, language: "typescript" };

/** Calls `tool` with a runner whose symbolEdit answers `answer`; returns the answer and the request sent. */
async function callTool(tool: GatewayTool, args: object, answer: ReturnType<typeof create<typeof EditAnswerSchema>>) {
  let request: Record<string, unknown> = {};
  let file = "";
  const runner = {
    symbolEdit: async (sent: Record<string, unknown>) => {
      request = sent;
      return answer;
    },
  };
  const call = {
    workspace: async () => ({ tenant: "acme", workspace: "web" }),
    sendForFile: async (_target: unknown, routed: string, rpc: (r: unknown, o: object) => unknown) => {
      file = routed;
      return rpc(runner, {});
    },
    audit: () => {},
  } as unknown as ToolCall;
  return { result: await tool.invoke(args, call), request, file };
}

const insertion = {
  status: { ...ready, resolved: { line: 14, column: 1 } },
  edit: {
    files: [
      {
        file: "src/greeter.ts",
        edits: [
          { range: { start: { line: 14, column: 1 }, end: { line: 14, column: 1 } }, newText: "// Greetings.\n" },
        ],
      },
    ],
  },
};
const inserted = create(EditAnswerSchema, insertion);

test("each tool sends its mode with the symbol path and text, routed by the file; a preview by default", async () => {
  const cases = [
    [replaceSymbolBodyTool, SymbolEditRequest_Mode.REPLACE_BODY],
    [insertBeforeSymbolTool, SymbolEditRequest_Mode.INSERT_BEFORE],
    [insertAfterSymbolTool, SymbolEditRequest_Mode.INSERT_AFTER],
  ] as const;
  for (const [tool, mode] of cases) {
    const args = { file: "src/greeter.ts", symbol: "PoliteGreeter.greet", text: "// Greetings." };
    const { request, file } = await callTool(tool, args, inserted);
    expect(file).toBe("src/greeter.ts");
    expect(request).toMatchObject({
      file: "src/greeter.ts",
      symbolPath: "PoliteGreeter.greet",
      mode,
      text: "// Greetings.",
      apply: false,
    });
    expect(request).not.toHaveProperty("delta");
  }
});

test("the answer names the symbol where it was found; applied, it asks and shows the delta", async () => {
  const preview = await callTool(
    insertBeforeSymbolTool,
    { file: "src/greeter.ts", symbol: "makeGreeting", text: "// Greetings." },
    inserted,
  );
  expect(preview.result.text).toBe(
    [
      "Preview of inserting before `makeGreeting` at src/greeter.ts:14:1 (not applied; call again with apply: true to write it): 1 edit in 1 file.",
      'src/greeter.ts:14:1-14:1 → "// Greetings.\\n"',
    ].join("\n"),
  );
  const applied = await callTool(
    replaceSymbolBodyTool,
    { file: "src/greeter.ts", symbol: "makeGreeting", text: "function makeGreeting() {}", apply: true },
    create(EditAnswerSchema, {
      ...insertion,
      applied: true,
      delta: { editedFiles: ["src/greeter.ts"], importerFiles: ["src/main.ts"] },
    }),
  );
  expect(applied.request).toMatchObject({ apply: true, delta: { enabled: true, waitMs: 10_000 } });
  expect(applied.result.text).toMatch(
    /^Applied replacing `makeGreeting` at src\/greeter.ts:14:1: 1 edit in 1 file\.\n.*\nDiagnostics after the edit: 0 new, 0 fixed, 0 unchanged in 2 files \(1 edited, 1 importer\)\.$/,
  );
  const unchanged = await callTool(
    replaceSymbolBodyTool,
    { file: "src/greeter.ts", symbol: "makeGreeting", text: "same" },
    create(EditAnswerSchema, { status: ready }),
  );
  expect(unchanged.result.text).toBe("Nothing to change: `makeGreeting` in src/greeter.ts already reads so.");
});

test("empty text and a missing symbol are refused before anything is sent", async () => {
  await expect(callTool(replaceSymbolBodyTool, { file: "src/a.ts", symbol: "f", text: "" }, inserted)).rejects.toThrow(
    /text must not be empty/,
  );
  await expect(callTool(insertAfterSymbolTool, { file: "src/a.ts", text: "x" }, inserted)).rejects.toThrow(/symbol/);
});
