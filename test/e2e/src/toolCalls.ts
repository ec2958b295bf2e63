// The tool catalogue as the whole-system tests call it: one call per tool of docs/tools.md, and
// which tools write nothing. Adding a tool adds it here (CONTRIBUTING.md, "Add an MCP tool").

/** What each tool is called with on test/kit/fixtures/typescript-basic. */
export const TOOL_CALLS: Record<string, Record<string, unknown>> = {
  find_definition: { file: "src/main.ts", symbol: "makeGreeting", line: 4 },
  find_type_definition: { file: "src/main.ts", symbol: "greeter", line: 3 },
  find_implementations: { file: "src/greeter.ts", symbol: "Greeter", line: 2 },
  find_references: { file: "src/greeter.ts", symbol: "makeGreeting", line: 14 },
  hover: { file: "src/main.ts", symbol: "wave", line: 4 },
  document_highlights: { file: "src/main.ts", symbol: "greeter", line: 3 },
  document_symbols: { file: "src/greeter.ts" },
  workspace_symbols: { query: "PoliteGreeter" },
  search_symbols: { query: "Greeter" },
  find_symbol: { name: "PoliteGreeter.greet", include_body: true },
  search_text: { query: "makeGreeting" },
  read_file: { file: "src/greeter.ts", start_line: 13, end_line: 16 },
  list_files: { glob: "src/**/*.ts" },
  diagnostics: { files: ["src/broken.ts"], wait_ms: 10_000 },
  check_edit: {
    edit: {
      files: [
        { file: "src/broken.ts", edits: [{ line: 3, column: 21, end_line: 3, end_column: 27, new_text: "string" }] },
      ],
    },
    wait_ms: 10_000,
  },
  completions: { file: "src/main.ts", line: 5, column: 21 },
  signature_help: { file: "src/main.ts", line: 5, column: 27 },
  code_actions: { file: "src/broken.ts", line: 3 },
  format_document: { file: "src/main.ts" },
  rename_symbol: { file: "src/greeter.ts", symbol: "makeGreeting", line: 14, new_name: "buildGreeting" },
  rename_file: { file: "src/greeter.ts", new_file: "src/greeting.ts" },
  apply_workspace_edit: {
    edit: {
      files: [{ file: "src/broken.ts", edits: [{ line: 1, column: 1, end_line: 1, end_column: 1, new_text: "" }] }],
    },
  },
  replace_symbol_body: {
    file: "src/greeter.ts",
    symbol: "makeGreeting",
    text: "export function makeGreeting(name: string): string {\n  return `Hi ${name}`;\n}",
  },
  insert_before_symbol: { file: "src/greeter.ts", symbol: "makeGreeting", text: "// Greetings." },
  insert_after_symbol: {
    file: "src/greeter.ts",
    symbol: "makeGreeting",
    text: 'export const hello = makeGreeting("x");',
  },
  call_hierarchy: { file: "src/greeter.ts", symbol: "makeGreeting", line: 14 },
  type_hierarchy: { file: "src/greeter.ts", symbol: "Greeter", line: 2 },
  inlay_hints: { file: "src/main.ts" },
  batch: {
    queries: [
      { tool: "hover", arguments: { file: "src/main.ts", symbol: "wave", line: 4 } },
      { tool: "find_definition", arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 } },
    ],
  },
  workspace_status: {},
  restart_language_server: { language: "typescript", wait_ms: 30_000 },
};

/** Tools that never write (listed under --read-only). */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set([
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
  "call_hierarchy",
  "type_hierarchy",
  "inlay_hints",
  "batch",
  "workspace_status",
]);
