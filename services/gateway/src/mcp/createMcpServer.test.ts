import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { GATEWAY_TOOLS } from "./createMcpServer.js";

test("the catalogue is the documented one (docs/tools.md), each tool once", () => {
  expect(GATEWAY_TOOLS.map((tool) => tool.name).sort()).toEqual(
    [
      "find_definition",
      "find_type_definition",
      "find_implementations",
      "find_references",
      "hover",
      "document_highlights",
      "document_symbols",
      "workspace_symbols",
      "search_symbols",
      "find_symbol",
      "search_text",
      "read_file",
      "list_files",
      "diagnostics",
      "check_edit",
      "completions",
      "signature_help",
      "code_actions",
      "format_document",
      "rename_symbol",
      "rename_file",
      "apply_workspace_edit",
      "replace_symbol_body",
      "insert_before_symbol",
      "insert_after_symbol",
      "call_hierarchy",
      "type_hierarchy",
      "inlay_hints",
      "batch",
      "workspace_status",
      "restart_language_server",
    ].sort(),
  );
});

test("docs/tools.md documents every tool", () => {
  const docs = readFileSync(new URL("../../../../docs/tools.md", import.meta.url), "utf8");
  for (const tool of GATEWAY_TOOLS) expect(docs, tool.name).toContain(`### \`${tool.name}\``);
});

test("writes need arguments that say so; reads never write", () => {
  const byName = new Map(GATEWAY_TOOLS.map((tool) => [tool.name, tool]));
  const position = { file: "src/a.ts", line: 1, column: 1 };
  expect(byName.get("rename_symbol")!.writes({ ...position, new_name: "b" })).toBe(false);
  expect(byName.get("rename_symbol")!.writes({ ...position, new_name: "b", apply: true })).toBe(true);
  expect(byName.get("code_actions")!.writes({ file: "a.ts", line: 1, apply_title: "Fix" })).toBe(true);
  expect(byName.get("format_document")!.writes({ file: "a.ts" })).toBe(false);
  expect(byName.get("apply_workspace_edit")!.writes({ edit: {} })).toBe(true);
  for (const tool of GATEWAY_TOOLS.filter((t) => t.annotations.readOnlyHint)) {
    expect(tool.annotations.destructiveHint, tool.name).toBe(false);
  }
});
