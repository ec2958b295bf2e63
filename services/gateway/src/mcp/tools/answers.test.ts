// Answer formatting of the tools whose runner side is still being built: positions and fields
// pass through exactly, texts say what was found and never claim "none" from a server not ready.
import { create } from "@bufbuild/protobuf";
import {
  CodeActionSchema,
  CodeActionsAnswerSchema,
  CompletionAnswerSchema,
  HierarchyAnswerSchema,
  InlayHintsAnswerSchema,
  ServerState,
  SignatureHelpAnswerSchema,
  SymbolKind,
} from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { PositionAt } from "../toolSupport/shared.js";
import { codeActionsAnswer } from "./codeActions.js";
import { completionsAnswer } from "./completions.js";
import { hierarchyAnswer } from "./hierarchy.js";
import { inlayHintsAnswer } from "./inlayHints.js";
import { signatureHelpAnswer } from "./signatureHelp.js";

const ready = { state: ServerState.READY, language: "typescript", server: "tsserver 5.9" };
const at: PositionAt = { file: "src/main.ts", target: { case: "position", value: { line: 5, column: 21 } } };

test("completions: items with kind and detail; insert_text only when it differs", () => {
  const answer = create(CompletionAnswerSchema, {
    status: ready,
    items: [
      { label: "greet", kind: "method", detail: "(name: string): string", insertText: "greet" },
      { label: "größe", kind: "property", insertText: "größe()" },
    ],
    incomplete: true,
  });
  const { text, structured } = completionsAnswer(answer, at);
  expect(text).toBe(
    "2 completions at src/main.ts:5:21 (more exist):\ngreet [method]: (name: string): string\ngröße [property]",
  );
  expect(structured.items).toEqual([
    { label: "greet", kind: "method", detail: "(name: string): string" },
    { label: "größe", kind: "property", insert_text: "größe()" },
  ]);
  expect(structured.incomplete).toBe(true);
  const indexing = create(CompletionAnswerSchema, { status: { ...ready, state: ServerState.INDEXING, partial: true } });
  expect(completionsAnswer(indexing, at).text).toMatch(/^No results yet: the typescript server is indexing/);
});

test("signature help marks the active signature and parameter (1-based in text, 0-based in structure)", () => {
  const answer = create(SignatureHelpAnswerSchema, {
    status: ready,
    signatures: ["greet(name: string): string", "greet(name: string, polite: boolean): string"],
    activeSignature: 1,
    activeParameter: 1,
    documentation: "Greets.",
  });
  const { text, structured } = signatureHelpAnswer(answer, at);
  expect(text).toBe(
    "Signature help at src/main.ts:5:21:\n  greet(name: string): string\n→ greet(name: string, polite: boolean): string  (parameter 2)\n\nGreets.",
  );
  expect(structured).toMatchObject({ active_signature: 1, active_parameter: 1 });
  const none = signatureHelpAnswer(create(SignatureHelpAnswerSchema, { status: ready }), at);
  expect(none.structured).toMatchObject({ signatures: [], active_signature: -1, active_parameter: -1 });
  expect(none.text).toMatch(/^No signature help at src\/main.ts:5:21/);
});

test("code actions list titles, kinds and their edits; applying names the action", () => {
  const answer = create(CodeActionsAnswerSchema, {
    status: ready,
    actions: [
      {
        title: "Add missing import",
        kind: "quickfix",
        preferred: true,
        edit: {
          files: [
            {
              file: "src/a.ts",
              edits: [
                { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "import x;\n" },
              ],
            },
          ],
        },
      },
    ],
  });
  const listed = codeActionsAnswer(answer, "src/a.ts:3", undefined);
  expect(listed.text).toBe(
    '1 code action at src/a.ts:3; apply one with apply_title:\n1. Add missing import [quickfix] (preferred)\n   1 edit in 1 file\n   src/a.ts:1:1-1:1 → "import x;\\n"',
  );
  expect(listed.structured.actions[0]?.edit.files[0]?.edits[0]).toEqual({
    line: 1,
    column: 1,
    end_line: 1,
    end_column: 1,
    new_text: "import x;\n",
  });
  const other = { title: "Convert to ES module", kind: "refactor.rewrite", preferred: false };
  const applied = codeActionsAnswer(
    { ...answer, actions: [...answer.actions, create(CodeActionSchema, other)], applied: true },
    "src/a.ts:3",
    "Add missing import",
  );
  // Only the action applied, with its edit: the others' previews are of the text before it.
  expect(applied.text).toBe(
    'Applied "Add missing import" at src/a.ts:3.\n1. Add missing import [quickfix] (preferred)\n   1 edit in 1 file\n   src/a.ts:1:1-1:1 → "import x;\\n"',
  );
  const missing = codeActionsAnswer(answer, "src/a.ts:3", "Nope");
  expect(missing.text).toMatch(/\(none titled "Nope", nothing applied\)/);
});

test("hierarchies nest with kinds, locations and call sites", () => {
  const answer = create(HierarchyAnswerSchema, {
    status: ready,
    root: {
      name: "makeGreeting",
      kind: SymbolKind.FUNCTION,
      location: { file: "src/greeter.ts", range: { start: { line: 14, column: 17 } } },
      children: [
        {
          name: "main",
          kind: SymbolKind.MODULE,
          location: { file: "src/main.ts", range: { start: { line: 1, column: 1 } } },
          callSites: [{ start: { line: 4, column: 37 }, end: { line: 4, column: 49 } }],
        },
      ],
    },
  });
  const { text, structured } = hierarchyAnswer(answer, at, "incoming", "call");
  expect(text).toBe(
    "Incoming of makeGreeting:\nfunction makeGreeting  src/greeter.ts:14:17\n  module main  src/main.ts:1:1 (1 call site)",
  );
  expect(structured.root?.children?.[0]?.call_sites).toEqual([{ line: 4, column: 37, end_line: 4, end_column: 49 }]);
  const leaf = hierarchyAnswer(
    create(HierarchyAnswerSchema, { status: ready, root: { name: "x", kind: SymbolKind.CLASS } }),
    at,
    "subtypes",
    "type",
  );
  expect(leaf.text).toBe("No subtypes for x (src/main.ts:5:21).");
  const libraries = "4 items in libraries outside the workspace left out (hierarchies show the workspace's own code)";
  const onlyLibraries = hierarchyAnswer(
    create(HierarchyAnswerSchema, {
      status: { ...ready, note: libraries },
      root: { name: "get_current_context", kind: SymbolKind.FUNCTION },
    }),
    at,
    "outgoing",
    "call",
  );
  expect(onlyLibraries.text).toBe(`No outgoing for get_current_context (src/main.ts:5:21).\nNote: ${libraries}.`);
  expect(hierarchyAnswer(create(HierarchyAnswerSchema, { status: ready }), at, "incoming", "call").text).toBe(
    "No symbol with a call hierarchy at src/main.ts:5:21.",
  );
});

test("inlay hints keep their positions and kinds", () => {
  const answer = create(InlayHintsAnswerSchema, {
    status: ready,
    hints: [{ position: { line: 4, column: 11 }, label: ": string", kind: "type" }],
  });
  const { text, structured } = inlayHintsAnswer(answer, "src/main.ts");
  expect(text).toBe("1 inlay hint in src/main.ts:\n4:11 : string [type]");
  expect(structured.hints).toEqual([{ line: 4, column: 11, label: ": string", kind: "type" }]);
});
