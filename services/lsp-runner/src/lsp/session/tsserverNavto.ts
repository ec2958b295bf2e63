// Workspace symbols of one tsserver project, asked through typescript-language-server's
// `typescript.tsserverRequest` command with the project's file named. Its own workspace/symbol asks
// the project of whichever document it used last, which other work (opening files, diagnostics)
// can change between our pointing at a file and asking; naming the file cannot be raced.
// Items are converted exactly as typescript-language-server converts them.

import { pathToFileURL } from "node:url";
import { ExecuteCommandRequest, type SymbolInformation, SymbolKind } from "vscode-languageserver-protocol";
import { TSSERVER_REQUEST_COMMAND } from "./tsserverDiagnostics.js";

/** tsserver's protocol.NavtoItem (1-based line, 1-based UTF-16 offset). */
interface NavtoItem {
  name: string;
  kind: string;
  file: string;
  start: { line: number; offset: number };
  end: { line: number; offset: number };
}

/** typescript-language-server's symbolKindsMapping (unknown kinds are variables). */
const SYMBOL_KINDS: Record<string, SymbolKind> = {
  "enum member": SymbolKind.Constant,
  "JSX attribute": SymbolKind.Property,
  "local class": SymbolKind.Class,
  "local function": SymbolKind.Function,
  "local var": SymbolKind.Variable,
  "type parameter": SymbolKind.Variable,
  alias: SymbolKind.Variable,
  class: SymbolKind.Class,
  const: SymbolKind.Constant,
  constructor: SymbolKind.Constructor,
  enum: SymbolKind.Enum,
  field: SymbolKind.Field,
  file: SymbolKind.File,
  function: SymbolKind.Function,
  getter: SymbolKind.Method,
  interface: SymbolKind.Interface,
  let: SymbolKind.Variable,
  method: SymbolKind.Method,
  module: SymbolKind.Module,
  parameter: SymbolKind.Variable,
  property: SymbolKind.Property,
  setter: SymbolKind.Method,
  var: SymbolKind.Variable,
};

/** Sends one request to the server (the engine's, which waits out indexing). */
export type ServerRequest = <R>(method: string, params: unknown) => Promise<R>;

/** Symbols matching `query` in the project of the open document `uri`. */
export async function tsserverNavto(request: ServerRequest, uri: string, query: string): Promise<SymbolInformation[]> {
  const response = await request<{ body?: NavtoItem[] } | null>(ExecuteCommandRequest.method, {
    command: TSSERVER_REQUEST_COMMAND,
    arguments: ["navto", { file: uri, searchValue: query }],
  });
  const position = ({ line, offset }: { line: number; offset: number }) => ({
    line: Math.max(line - 1, 0),
    character: Math.max(offset - 1, 0),
  });
  return (response?.body ?? []).map((item) => ({
    name: item.name,
    kind: SYMBOL_KINDS[item.kind] ?? SymbolKind.Variable,
    location: { uri: pathToFileURL(item.file).href, range: { start: position(item.start), end: position(item.end) } },
  }));
}
