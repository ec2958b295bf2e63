// The shared body of the edit tools, through rename_symbol and apply_workspace_edit with a fake
// call: previews ask no delta, applied edits ask DeltaOptions and wait longer, the answer carries it.
import { create } from "@bufbuild/protobuf";
import { EditAnswerSchema, ServerState, Severity } from "@lspmesh/proto";
import type { LogFields } from "@lspmesh/service-kit";
import { describe, expect, test } from "vitest";
import type { ToolCall } from "../toolCall.js";
import { applyWorkspaceEditTool } from "../tools/applyWorkspaceEdit.js";
import { renameSymbolTool } from "../tools/renameSymbol.js";

const workspace = { tenant: "acme", workspace: "web" };

const renamed = {
  status: { state: ServerState.READY, language: "typescript", resolved: { line: 14, column: 17 } },
  applied: true,
  edit: {
    files: [
      {
        file: "src/greeter.ts",
        edits: [{ range: { start: { line: 14, column: 17 }, end: { line: 14, column: 29 } }, newText: "build" }],
      },
    ],
  },
  delta: {
    changes: [
      {
        file: "src/main.ts",
        state: "new",
        diagnostic: {
          range: { start: { line: 3, column: 10 }, end: { line: 3, column: 22 } },
          severity: Severity.ERROR,
          code: "2305",
          message: "Module './greeter' has no exported member 'makeGreeting'.",
        },
      },
    ],
    editedFiles: ["src/greeter.ts"],
    importerFiles: ["src/main.ts"],
  },
};
const applied = create(EditAnswerSchema, renamed);

/** A call that records how the runner was asked, and answers `answer`. */
function fakeCall(answer = applied) {
  const seen: { route?: string; files?: readonly string[]; options?: object; request?: Record<string, unknown> } = {};
  const audit: LogFields = {};
  const runner = new Proxy(
    {},
    {
      get: () => async (request: Record<string, unknown>) => {
        seen.request = request;
        return answer;
      },
    },
  );
  const call = {
    workspace: async () => workspace,
    sendForFile: async (_target: unknown, file: string, rpc: (r: unknown, o: object) => unknown, options: object) => {
      Object.assign(seen, { route: "file", files: [file], options });
      return rpc(runner, {});
    },
    sendForEdit: async (
      _target: unknown,
      files: string[],
      rpc: (r: unknown, o: object) => unknown,
      options: object,
    ) => {
      Object.assign(seen, { route: "edit", files, options });
      return rpc(runner, {});
    },
    audit: (fields: LogFields) => Object.assign(audit, fields),
  } as unknown as ToolCall;
  return { call, seen, audit };
}

const rename = { file: "src/greeter.ts", symbol: "makeGreeting", line: 14, new_name: "build" };

describe("edit tools", () => {
  test("a preview asks no delta and keeps the usual deadline", async () => {
    const { call, seen } = fakeCall(create(EditAnswerSchema, { status: renamed.status, edit: renamed.edit }));
    const answer = await renameSymbolTool.invoke(rename, call);
    expect(seen.route).toBe("file");
    expect(seen.options).toEqual({ write: false });
    expect(seen.request).not.toHaveProperty("delta");
    expect(answer.text).toMatch(/^Preview of renaming `makeGreeting` at src\/greeter.ts:14:17 to build/);
    expect(answer.structured).not.toHaveProperty("delta");
  });

  test("applied, it asks the delta (waiting wait_ms longer) and answers what the edit broke", async () => {
    const { call, seen, audit } = fakeCall();
    const answer = await renameSymbolTool.invoke({ ...rename, apply: true, wait_ms: 5000 }, call);
    expect(seen.options).toEqual({ write: true, extraMs: 5000 });
    expect(seen.request).toMatchObject({ workspace, apply: true, delta: { enabled: true, waitMs: 5000 } });
    expect(answer.text).toBe(
      [
        "Applied renaming `makeGreeting` at src/greeter.ts:14:17 to build: 1 edit in 1 file.",
        'src/greeter.ts:14:17-14:29 → "build"',
        "Diagnostics after the edit: 1 new, 0 fixed, 0 unchanged in 2 files (1 edited, 1 importer).",
        "New (1):",
        "src/main.ts:3:10 error 2305: Module './greeter' has no exported member 'makeGreeting'.",
      ].join("\n"),
    );
    expect(answer.structured).toMatchObject({
      applied: true,
      delta: { counts: { new: 1, fixed: 0, unchanged: 0 }, changes: [{ file: "src/main.ts", state: "new" }] },
    });
    expect(audit).toMatchObject({ workspace: "web", applied: true, files: "src/greeter.ts" });
  });

  test("diagnostics: false writes without asking for the delta", async () => {
    const { call, seen } = fakeCall();
    await renameSymbolTool.invoke({ ...rename, apply: true, diagnostics: false }, call);
    expect(seen.options).toEqual({ write: true });
    expect(seen.request).not.toHaveProperty("delta");
  });

  test("apply_workspace_edit always writes: routed by the edit's files, audited before the call, delta by default", async () => {
    const { call, seen, audit } = fakeCall();
    const edit = {
      files: [{ file: "README.md", edits: [{ line: 1, column: 1, end_line: 1, end_column: 1, new_text: "# " }] }],
      operations: [{ kind: "rename", file: "src/a.ts", new_file: "src/b.ts" }],
    };
    const answer = await applyWorkspaceEditTool.invoke({ edit }, call);
    expect(seen).toMatchObject({ route: "edit", files: ["README.md", "src/a.ts", "src/b.ts"] });
    expect(seen.options).toEqual({ write: true, extraMs: 10_000 });
    expect(seen.request).toMatchObject({ delta: { enabled: true, waitMs: 10_000 } });
    expect(audit).toMatchObject({ workspace: "web", files: "README.md,src/a.ts,src/b.ts", applied: true });
    expect(answer.text).toMatch(/^Applied the workspace edit: /);
    await expect(applyWorkspaceEditTool.invoke({ edit: {} }, call)).rejects.toThrow(/the edit is empty/);
  });
});
