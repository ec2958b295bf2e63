// Navigation and information queries: definitions, references, hover, symbols.
import type {
  Hover,
  LocationLink,
  DocumentSymbol as LspDocumentSymbol,
  Location as LspLocation,
  WorkspaceSymbol as LspWorkspaceSymbol,
  MarkedString,
  MarkupContent,
  ServerCapabilities,
  SymbolInformation,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { fromLspRange } from "../lsp/positionEncoding.js";
import type {
  DocumentSymbol,
  DocumentSymbolsAnswer,
  HoverAnswer,
  LocationsAnswer,
  PositionTarget,
  ReferencesAnswer,
  WorkspaceRef,
  WorkspaceSymbolsAnswer,
} from "./answers.js";
import { type EngineContext, requireCapability } from "./engineContext.js";
import { FileLines } from "./fileLines.js";

/** Workspace symbols returned when the caller gives no limit (default 100). */
const DEFAULT_SYMBOL_LIMIT = 100;

export type LocationKind = "definition" | "typeDefinition" | "implementation";

const LOCATION_METHODS: Record<LocationKind, { method: string; capability: keyof ServerCapabilities }> = {
  definition: { method: "textDocument/definition", capability: "definitionProvider" },
  typeDefinition: { method: "textDocument/typeDefinition", capability: "typeDefinitionProvider" },
  implementation: { method: "textDocument/implementation", capability: "implementationProvider" },
};

export class NavigationQueries {
  constructor(private readonly engine: EngineContext) {}

  async locations(kind: LocationKind, ref: WorkspaceRef, at: PositionTarget, signal?: AbortSignal) {
    const { method, capability } = LOCATION_METHODS[kind];
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, capability, method);
    const resolved = this.engine.resolvePosition(context, at);
    const result = await this.engine.query<LspLocation | LspLocation[] | LocationLink[] | null>(
      context.session,
      method,
      this.engine.positionParams(context, resolved),
      signal,
    );
    const converted = await this.engine.convertLocations(context, normaliseLocations(result));
    return this.engine.withStatus<LocationsAnswer>(
      context.session,
      { locations: converted.locations },
      {
        empty: converted.locations.length === 0,
        resolved: at.symbol ? resolved : undefined,
        omitted: converted.omitted,
      },
    );
  }

  async references(
    ref: WorkspaceRef,
    at: PositionTarget,
    includeDeclaration: boolean,
    limit: number,
    signal?: AbortSignal,
  ): Promise<ReferencesAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, "referencesProvider", "textDocument/references");
    const resolved = this.engine.resolvePosition(context, at);
    const result = await this.engine.query<LspLocation[] | null>(
      context.session,
      "textDocument/references",
      { ...this.engine.positionParams(context, resolved), context: { includeDeclaration } },
      signal,
    );
    const converted = await this.engine.convertLocations(context, result ?? []);
    const total = converted.locations.length;
    const locations = limit > 0 ? converted.locations.slice(0, limit) : converted.locations;
    return this.engine.withStatus<ReferencesAnswer>(
      context.session,
      { locations, total },
      {
        empty: total === 0,
        resolved: at.symbol ? resolved : undefined,
        omitted: converted.omitted,
      },
    );
  }

  async hover(ref: WorkspaceRef, at: PositionTarget, signal?: AbortSignal): Promise<HoverAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, "hoverProvider", "textDocument/hover");
    const resolved = this.engine.resolvePosition(context, at);
    const result = await this.engine.query<Hover | null>(
      context.session,
      "textDocument/hover",
      this.engine.positionParams(context, resolved),
      signal,
    );
    const contents = result ? hoverText(result.contents) : "";
    const range = result?.range
      ? fromLspRange(context.document.lines, result.range, context.session.encoding)
      : undefined;
    return this.engine.withStatus<HoverAnswer>(
      context.session,
      { contents, range },
      {
        empty: contents === "",
        resolved: at.symbol ? resolved : undefined,
      },
    );
  }

  async documentSymbols(ref: WorkspaceRef, file: string, signal?: AbortSignal): Promise<DocumentSymbolsAnswer> {
    const context = await this.engine.openDocument(ref, file);
    requireCapability(context.session, "documentSymbolProvider", "textDocument/documentSymbol");
    const result = await this.engine.query<LspDocumentSymbol[] | SymbolInformation[] | null>(
      context.session,
      "textDocument/documentSymbol",
      { textDocument: { uri: context.document.uri } },
      signal,
    );
    const { lines } = context.document;
    const encoding = context.session.encoding;
    const convert = (symbol: LspDocumentSymbol | SymbolInformation): DocumentSymbol => {
      if ("location" in symbol) {
        const range = fromLspRange(lines, symbol.location.range, encoding);
        return {
          name: symbol.name,
          detail: symbol.containerName ?? "",
          kind: symbol.kind,
          range,
          selectionRange: range,
          children: [],
        };
      }
      return {
        name: symbol.name,
        detail: symbol.detail ?? "",
        kind: symbol.kind,
        range: fromLspRange(lines, symbol.range, encoding),
        selectionRange: fromLspRange(lines, symbol.selectionRange, encoding),
        children: (symbol.children ?? []).map(convert),
      };
    };
    const symbols = (result ?? []).map(convert);
    return this.engine.withStatus<DocumentSymbolsAnswer>(context.session, { symbols }, { empty: symbols.length === 0 });
  }

  async workspaceSymbols(
    ref: WorkspaceRef,
    query: string,
    languageId: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<WorkspaceSymbolsAnswer> {
    const paths = await this.engine.workspacePaths(ref);
    const language = await this.engine.pickWorkspaceLanguage(paths, languageId);
    // Project-based servers (tsserver) answer only once a file of the project is open.
    const anchor = await this.engine.firstFileOf(paths, language);
    if (!anchor) throw new RunnerError("NOT_FOUND", `the workspace has no ${language.id} files`);
    const context = await this.engine.openDocument(ref, anchor, paths);
    requireCapability(context.session, "workspaceSymbolProvider", "workspace/symbol");
    const result = await this.engine.query<Array<SymbolInformation | LspWorkspaceSymbol> | null>(
      context.session,
      "workspace/symbol",
      { query },
      signal,
    );
    const lines = new FileLines(context.session);
    const max = limit > 0 ? limit : DEFAULT_SYMBOL_LIMIT;
    const symbols: WorkspaceSymbolsAnswer["symbols"] = [];
    let omitted = 0;
    for (const symbol of result ?? []) {
      if (symbols.length >= max) break;
      const range =
        "range" in symbol.location
          ? symbol.location.range
          : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
      const location = await this.engine.convertLocation(paths, lines, context.session, symbol.location.uri, range);
      if (!location) {
        omitted++;
        continue;
      }
      symbols.push({ name: symbol.name, kind: symbol.kind, containerName: symbol.containerName ?? "", location });
    }
    return this.engine.withStatus<WorkspaceSymbolsAnswer>(
      context.session,
      { symbols },
      { empty: symbols.length === 0, omitted },
    );
  }
}

function normaliseLocations(result: LspLocation | LspLocation[] | LocationLink[] | null): LspLocation[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((item) =>
    "targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange ?? item.targetRange } : item,
  );
}

function hoverText(contents: MarkupContent | MarkedString | MarkedString[]): string {
  const parts = Array.isArray(contents) ? contents : [contents];
  return parts
    .map((part) => {
      if (typeof part === "string") return part;
      if ("kind" in part) return part.value;
      return `\`\`\`${part.language}\n${part.value}\n\`\`\``;
    })
    .filter((text) => text.trim() !== "")
    .join("\n\n");
}
