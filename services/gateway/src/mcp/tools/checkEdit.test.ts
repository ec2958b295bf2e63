import { create } from "@bufbuild/protobuf";
import { CheckEditAnswerSchema, ServerState, Severity } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import type { ToolCall } from "../toolCall.js";
import { checkEditAnswer, checkEditTool } from "./checkEdit.js";

const ready = { state: ServerState.READY, language: "typescript", server: "tsserver 5.9" };
const error = (line: number, column: number, code: string, message: string) => ({
  range: { start: { line, column }, end: { line, column: column + 6 } },
  severity: Severity.ERROR,
  code,
  message,
});

describe("check_edit answers", () => {
  test("a breaking change: the new errors in importers and the fixed ones listed, unchanged ones counted", () => {
    const answer = create(CheckEditAnswerSchema, {
      status: ready,
      delta: {
        changes: [
          { file: "src/main.ts", state: "new", diagnostic: error(5, 21, "2339", "Property 'length' does not exist.") },
          {
            file: "src/broken.ts",
            state: "fixed",
            diagnostic: error(3, 14, "2322", "Type 'string' is not assignable."),
          },
          { file: "src/greeter.ts", state: "unchanged", diagnostic: error(2, 1, "6133", "'x' is unused.") },
        ],
        editedFiles: ["src/greeter.ts"],
        importerFiles: ["src/main.ts", "src/broken.ts"],
      },
    });
    const { text, structured } = checkEditAnswer(answer);
    expect(text).toBe(
      [
        "check_edit: 1 new, 1 fixed, 1 unchanged in 3 files (1 edited, 2 importers).",
        "New (1):",
        "src/main.ts:5:21 error 2339: Property 'length' does not exist.",
        "Fixed (1):",
        "src/broken.ts:3:14 error 2322: Type 'string' is not assignable.",
      ].join("\n"),
    );
    expect(structured).toMatchObject({
      state: "ready",
      partial: false,
      counts: { new: 1, fixed: 1, unchanged: 1 },
      edited_files: ["src/greeter.ts"],
      importer_files: ["src/main.ts", "src/broken.ts"],
      importers_not_checked: 0,
    });
    expect(structured.changes.map((change) => [change.file, change.state, change.line])).toEqual([
      ["src/main.ts", "new", 5],
      ["src/broken.ts", "fixed", 3],
      ["src/greeter.ts", "unchanged", 2],
    ]);
  });

  test("diagnostics late or a server not ready: partial, with why, and 0 new is not claimed to mean safe", () => {
    const late = checkEditAnswer(
      create(CheckEditAnswerSchema, {
        status: ready,
        delta: { editedFiles: ["src/a.ts"], partial: true, note: "src/a.ts: no diagnostics within 15000 ms" },
      }),
    );
    expect(late.structured).toMatchObject({ partial: true, note: "src/a.ts: no diagnostics within 15000 ms" });
    expect(late.text).toContain("Incomplete: src/a.ts: no diagnostics within 15000 ms. 0 new proves nothing.");
    // The runner's delta note carries the server's partial note: said once.
    const repeated = checkEditAnswer(
      create(CheckEditAnswerSchema, {
        status: { ...ready, partial: true, note: "project still loading" },
        delta: { editedFiles: ["src/a.ts"], partial: true, note: "project still loading" },
      }),
    );
    expect(repeated.structured.note).toBe("project still loading");
    expect(repeated.text.match(/project still loading/g)).toHaveLength(1);
    const indexing = checkEditAnswer(
      create(CheckEditAnswerSchema, {
        status: { ...ready, state: ServerState.INDEXING, partial: true },
        delta: { editedFiles: ["src/a.ts"] },
      }),
    );
    expect(indexing.structured).toMatchObject({ state: "indexing", partial: true });
    expect(indexing.text).toMatch(/^Partial answer: the typescript server is indexing/);
    const none = checkEditAnswer(create(CheckEditAnswerSchema, { status: ready }));
    expect(none.structured).toMatchObject({ partial: true, note: "the runner answered without a comparison" });
  });
});

describe("check_edit arguments", () => {
  /** A call that records the request and the routing, and answers an empty comparison. */
  function fakeCall() {
    const seen: { files?: readonly string[]; options?: object; request?: Record<string, unknown> } = {};
    const runner = {
      checkEdit: async (request: Record<string, unknown>) => {
        seen.request = request;
        return create(CheckEditAnswerSchema, { status: ready, delta: {} });
      },
    };
    const call = {
      workspace: async () => ({ tenant: "acme", workspace: "web" }),
      sendForEdit: async (
        _target: unknown,
        files: string[],
        rpc: (r: unknown, o: object) => unknown,
        options: object,
      ) => {
        Object.assign(seen, { files, options });
        return rpc(runner, {});
      },
    } as unknown as ToolCall;
    return { call, seen };
  }

  test("a patch is routed by its files and sent as is; the deadline grows by wait_ms", async () => {
    const { call, seen } = fakeCall();
    const patch = "--- a/src/greeter.py\n+++ b/src/greeter.py\n@@ -1 +1 @@\n-a\n+b\n";
    await checkEditTool.invoke({ patch, importers: false }, call);
    expect(seen.files).toEqual(["src/greeter.py"]);
    expect(seen.options).toEqual({ extraMs: 15_000 });
    expect(seen.request).toMatchObject({
      change: { case: "patch", value: patch },
      waitMs: 15_000,
      skipImporters: true,
    });
  });

  test("an edit is converted like apply_workspace_edit's, text edits only", async () => {
    const { call, seen } = fakeCall();
    const edit = {
      files: [{ file: "src/a.ts", edits: [{ line: 2, column: 3, end_line: 2, end_column: 5, new_text: "ok" }] }],
    };
    await checkEditTool.invoke({ edit, wait_ms: 0 }, call);
    expect(seen.files).toEqual(["src/a.ts"]);
    expect(seen.request).toMatchObject({
      change: {
        case: "edit",
        value: {
          files: [
            { file: "src/a.ts", edits: [{ range: { start: { line: 2, column: 3 }, end: { line: 2, column: 5 } } }] },
          ],
          operations: [],
        },
      },
      // 0 = "at once"; on the wire 0 would mean the runner's default.
      waitMs: 1,
      skipImporters: false,
    });
  });

  test("exactly one of edit and patch; no file operations; a patch must name its files", async () => {
    const { call } = fakeCall();
    // Argument errors are thrown while parsing, before the body runs: wrapped to reject.
    const check = async (args: object) => checkEditTool.invoke(args, call);
    const edit = { files: [{ file: "a.ts", edits: [] }] };
    await expect(check({})).rejects.toThrow(/give edit .* or patch/);
    await expect(check({ edit, patch: "x" })).rejects.toThrow(/not both/);
    await expect(check({ edit: { files: [] } })).rejects.toThrow(/the edit is empty/);
    await expect(check({ edit: { operations: [{ kind: "delete", file: "a.ts" }] } })).rejects.toThrow(
      /unknown field in edit: operations/,
    );
    await expect(check({ patch: "@@ -1 +1 @@\n-a\n+b\n" })).rejects.toThrow(/names no file/);
  });
});

test("a ready server whose partial note the delta already says gets no 'try again shortly' header", () => {
  const note = "no compile_commands.json in the workspace root or build/";
  const answer = create(CheckEditAnswerSchema, {
    status: { state: ServerState.READY, language: "cpp", partial: true, note },
    delta: { changes: [], editedFiles: ["sds.h"], importerFiles: ["sds.c"], partial: true, note },
  });
  const { text } = checkEditAnswer(answer);
  expect(text).not.toContain("try again shortly");
  expect(text.split("\n")[0]).toMatch(/^check_edit: 0 new/);
});
