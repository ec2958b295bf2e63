// Navigation and information queries: definitions, references, hover, symbols.

import { fileURLToPath, pathToFileURL } from "node:url";
import { rankSymbols, type SymbolKind, symbolKindName } from "@lspmesh/proto";
import type {
  LocationLink,
  DocumentSymbol as LspDocumentSymbol,
  Location as LspLocation,
  WorkspaceSymbol as LspWorkspaceSymbol,
  MarkedString,
  MarkupContent,
  ServerCapabilities,
  SymbolInformation,
} from "vscode-languageserver-protocol";
import {
  DefinitionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  ImplementationRequest,
  ReferencesRequest,
  type RequestType,
  type TextDocumentPositionParams,
  TypeDefinitionRequest,
  WorkspaceSymbolRequest,
} from "vscode-languageserver-protocol";
import type { LanguageServerConfig } from "../lsp/languages/languageRegistry.js";
import { fromLspRange } from "../lsp/session/positionEncoding.js";
import { tsserverNavto } from "../lsp/session/tsserverNavto.js";
import type { WorkspacePaths } from "../workspace/workspacePaths.js";
import { implementationsAcrossProjects } from "./acrossProjects.js";
import type {
  DocumentSymbol,
  DocumentSymbolsAnswer,
  HoverAnswer,
  LocationsAnswer,
  ReferencesAnswer,
  WorkspaceRef,
  WorkspaceSymbolsAnswer,
} from "./answers.js";
import { distinctNotes } from "./distinctNotes.js";
import { type DocumentContext, type EngineContext, type ProjectLoad, requireCapability } from "./engineContext.js";
import { FileLines } from "./fileLines.js";
import { normaliseLocations } from "./lspLocations.js";
import type {
  DocumentSymbolsQuery,
  LocationKind,
  LocationsQuery,
  PositionQuery,
  ReferencesQuery,
  WorkspaceSymbolsQuery,
} from "./queries.js";
import { startingAtName } from "./symbolNameRange.js";

/** Workspace symbols returned when the caller gives no limit (default 100), and at most (1000). */
const DEFAULT_SYMBOL_LIMIT = 100;
const MAX_SYMBOL_LIMIT = 1_000;

const LOCATION_METHODS = {
  definition: { type: DefinitionRequest.type, capability: "definitionProvider" },
  typeDefinition: { type: TypeDefinitionRequest.type, capability: "typeDefinitionProvider" },
  implementation: { type: ImplementationRequest.type, capability: "implementationProvider" },
} as const satisfies Record<LocationKind, { type: { method: string }; capability: keyof ServerCapabilities }>;

export class NavigationQueries {
  constructor(private readonly engine: EngineContext) {}

  async locations({ kind, ref, at, signal }: LocationsQuery) {
    const { type, capability } = LOCATION_METHODS[kind];
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, capability, type.method);
    const resolved = this.engine.resolvePosition(context, at);
    // The three requests answer the same shapes (Location, Location[], LocationLink[] or null).
    const result = await this.engine.query<
      TextDocumentPositionParams,
      LspLocation | LspLocation[] | LocationLink[] | null
    >(
      context.session,
      type as RequestType<TextDocumentPositionParams, LspLocation | LspLocation[] | LocationLink[] | null, unknown>,
      this.engine.positionParams(context, resolved),
      signal,
    );
    let locations = normaliseLocations(result);
    let projects: ProjectLoad | undefined;
    if (kind === "implementation") {
      // tsserver searches the asked file's project only: the others are asked from a use in each.
      ({ locations, projects } = await implementationsAcrossProjects(
        this.engine,
        ref,
        context,
        resolved,
        locations,
        signal,
      ));
    }
    const converted = await this.engine.convertLocations(context, locations);
    return this.engine.withStatus<LocationsAnswer>(
      context,
      { locations: converted.locations },
      {
        empty: converted.locations.length === 0,
        resolved: at.symbol ? resolved : undefined,
        projects,
        omitted: converted.omitted,
      },
    );
  }

  async references({
    ref,
    at,
    includeDeclaration,
    limit,
    offset = 0,
    signal,
  }: ReferencesQuery): Promise<ReferencesAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, "referencesProvider", ReferencesRequest.method);
    const resolved = this.engine.resolvePosition(context, at);
    // References in other projects are found only when those projects are loaded.
    const projects = await this.engine.loadProjects(context, this.engine.nameAt(context, resolved));
    const result = await this.engine.query(
      context.session,
      ReferencesRequest.type,
      { ...this.engine.positionParams(context, resolved), context: { includeDeclaration } },
      signal,
    );
    // The server's order (file, then position) is stable while nothing changes: pages follow it.
    // Every location is judged and counted; only the page's are converted, with their snippets.
    const converted = await this.engine.convertLocationPage(context, result ?? [], offset, limit);
    const { locations, total } = converted;
    return this.engine.withStatus<ReferencesAnswer>(
      context,
      { locations, total },
      {
        empty: total === 0,
        resolved: at.symbol ? resolved : undefined,
        omitted: converted.omitted,
        projects,
      },
    );
  }

  async hover({ ref, at, signal }: PositionQuery): Promise<HoverAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, "hoverProvider", HoverRequest.method);
    const resolved = this.engine.resolvePosition(context, at);
    const result = await this.engine.query(
      context.session,
      HoverRequest.type,
      this.engine.positionParams(context, resolved),
      signal,
    );
    const contents = result ? hoverText(result.contents) : "";
    const range = result?.range
      ? fromLspRange(context.document.lines, result.range, context.session.encoding)
      : undefined;
    return this.engine.withStatus<HoverAnswer>(
      context,
      { contents, range },
      {
        empty: contents === "",
        resolved: at.symbol ? resolved : undefined,
      },
    );
  }

  async documentSymbols({ ref, file, signal, transient }: DocumentSymbolsQuery): Promise<DocumentSymbolsAnswer> {
    const context = await this.engine.openDocument(ref, file);
    if (transient && !context.wasOpen) {
      try {
        return await this.documentSymbolsOf(context, signal);
      } finally {
        await context.session.closeDocument(context.document.uri).catch(() => false);
      }
    }
    return this.documentSymbolsOf(context, signal);
  }

  private async documentSymbolsOf(
    context: DocumentContext,
    signal: AbortSignal | undefined,
  ): Promise<DocumentSymbolsAnswer> {
    requireCapability(context.session, "documentSymbolProvider", DocumentSymbolRequest.method);
    const result = await this.engine.query(
      context.session,
      DocumentSymbolRequest.type,
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
        selectionRange: startingAtName(lines, fromLspRange(lines, symbol.selectionRange, encoding), symbol.name),
        children: inSourceOrder((symbol.children ?? []).map(convert)),
      };
    };
    // Servers list symbols in their own order (tsserver: by kind and name); answers read top-down.
    const symbols = inSourceOrder((result ?? []).map(convert));
    return this.engine.withStatus<DocumentSymbolsAnswer>(
      context.session,
      { symbols },
      { empty: symbols.length === 0, fileOnly: true },
    );
  }

  /**
   * Symbols matching `query`: from the named language's server, or (no language) from every
   * installed language with files in the workspace, merged. A language with no files in the
   * workspace answers empty, not NOT_FOUND: gateways fan out to every language runners serve.
   */
  async workspaceSymbols({
    ref,
    query,
    languageId,
    limit,
    signal,
    onlyLanguages = [],
  }: WorkspaceSymbolsQuery): Promise<WorkspaceSymbolsAnswer> {
    const paths = await this.engine.workspacePaths(ref);
    const ids = onlyLanguages.length > 0 ? onlyLanguages : languageId ? [languageId] : [];
    const candidates =
      ids.length > 0
        ? await Promise.all(ids.map((id) => this.engine.pickWorkspaceLanguage(paths, id)))
        : this.engine.options.languages.installed();
    const present: Array<{ language: LanguageServerConfig; anchor: string }> = [];
    for (const language of candidates) {
      // Project-based servers (tsserver) answer only once a file of the project is open.
      const anchor = await this.engine.firstFileOf(paths, language);
      if (anchor) present.push({ language, anchor });
    }
    if (present.length === 0) {
      const what = languageId ? `${languageId} files` : "source files of an installed language";
      return {
        symbols: [],
        status: {
          state: "ready",
          language: languageId,
          server: "",
          partial: false,
          note: `the workspace has no ${what}`,
        },
        total: 0,
      };
    }
    const max = Math.min(limit > 0 ? limit : DEFAULT_SYMBOL_LIMIT, MAX_SYMBOL_LIMIT);
    const parts = await Promise.all(
      present.map(({ anchor }) => this.symbolsOfLanguage(ref, paths, anchor, query, signal)),
    );
    // Every match of every language ranked first, then the best `max` kept: a limit never cuts
    // in the server's order. Matches outside the workspace are left out and counted.
    const inside = (uri: string) => uri.startsWith(`${pathToFileURL(paths.root).href}/`);
    const matches = parts.flatMap((part) =>
      part.matches
        .filter((symbol) => inside(symbol.location.uri))
        .map((symbol) => {
          const start = "range" in symbol.location ? symbol.location.range.start : { line: 0, character: 0 };
          const ranked = {
            name: symbol.name,
            kind: symbolKindName(symbol.kind as number as SymbolKind),
            location: { file: symbol.location.uri, line: start.line, column: start.character },
          };
          return { ...ranked, symbol, part };
        }),
    );
    const outside = parts.reduce((sum, part) => sum + part.matches.length, 0) - matches.length;
    let dropped = 0; // inside by name, outside once resolved (a symlink out)
    const symbols: WorkspaceSymbolsAnswer["symbols"] = [];
    const lines = new Map(parts.map((part) => [part, new FileLines(part.session)]));
    for (const { symbol, part } of rankSymbols(matches, query)) {
      if (symbols.length >= max) break;
      const range =
        "range" in symbol.location
          ? symbol.location.range
          : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
      const location = await this.engine.convertLocation(
        paths,
        lines.get(part)!,
        part.session,
        symbol.location.uri,
        range,
      );
      if (!location) {
        dropped++;
        continue;
      }
      // tsserver's workspace symbols start at the declaration (`export class …`): at the name, as everywhere.
      if (!location.external && symbol.location.uri.startsWith("file:")) {
        const fileLines = await lines.get(part)!.get(fileURLToPath(symbol.location.uri));
        location.range = startingAtName(fileLines, location.range, symbol.name);
      }
      symbols.push({ name: symbol.name, kind: symbol.kind, containerName: symbol.containerName ?? "", location });
    }
    const total = matches.length - dropped;
    const omitted = outside + dropped;
    const statuses = parts.map(
      (part) =>
        this.engine.withStatus<WorkspaceSymbolsAnswer>(
          part.session,
          { symbols, total },
          { empty: symbols.length === 0, omitted, projects: part.projects, cappedNote: part.cappedNote },
        ).status,
    );
    if (parts.length === 1) return { symbols, total, status: statuses[0]! };
    const status = this.engine.combinedStatus(parts.map((part) => part.session));
    status.partial = statuses.some((s) => s.partial);
    status.note = distinctNotes(statuses.map((s) => s.note));
    return { symbols, total, status };
  }

  /**
   * tsserver answers workspace symbols for one project at a time, so each project is asked in
   * turn through one of its files — named directly through typescript-language-server's
   * tsserverRequest command, or for other such servers made the last used by a hover — and the
   * answers are merged. Servers that search every project answer the same each time.
   */
  private async symbolsOfEveryProject(
    context: DocumentContext,
    projects: ProjectLoad,
    query: string,
    signal?: AbortSignal,
  ): Promise<{ symbols: Array<SymbolInformation | LspWorkspaceSymbol>; cappedNote?: string }> {
    const { session } = context;
    const uris = [context.document.uri, ...(projects.anchorUris ?? [])];
    const cap = session.language.workspaceSymbolLimit;
    // clangd's own `limit` extension of the request; other servers are not sent it.
    const params = cap?.asked ? { query, limit: cap.most } : { query };
    let capped = false;
    // typescript-language-server can be asked per project by naming a file of it (see tsserverNavto).
    const perProject = session.language.diagnosticsPull === "tsserverRequest";
    const seen = new Set<string>();
    const merged: Array<SymbolInformation | LspWorkspaceSymbol> = [];
    for (const [index, uri] of uris.entries()) {
      let answer: Array<SymbolInformation | LspWorkspaceSymbol>;
      if (perProject) {
        answer = await tsserverNavto(
          (method, params) => this.engine.query(session, method, params, signal),
          uri,
          query,
        );
      } else {
        if (index > 0) {
          await session
            .request(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } }, signal)
            .catch(() => undefined);
        }
        answer = (await this.engine.query(session, WorkspaceSymbolRequest.type, params, signal)) ?? [];
      }
      if (cap && answer.length >= cap.most) capped = true;
      for (const symbol of answer) {
        const start = "range" in symbol.location ? symbol.location.range.start : { line: -1, character: -1 };
        const key = `${symbol.name}\0${symbol.location.uri}\0${start.line}:${start.character}`;
        if (seen.has(key)) continue;
        seen.add(key);
        merged.push(symbol);
      }
    }
    if (!cap || !capped) return { symbols: merged };
    const cappedNote = `the ${session.language.id} server answers at most ${cap.most} matches and gave that many: others may be missing; search with a longer query`;
    return { symbols: merged, cappedNote };
  }

  /** Every match of one language's server, from every project, not yet converted. */
  private async symbolsOfLanguage(
    ref: WorkspaceRef,
    paths: WorkspacePaths,
    anchor: string,
    query: string,
    signal?: AbortSignal,
  ) {
    const context = await this.engine.openDocument(ref, anchor, paths);
    requireCapability(context.session, "workspaceSymbolProvider", WorkspaceSymbolRequest.method);
    const projects = await this.engine.loadProjects(context);
    const { symbols: matches, cappedNote } = await this.symbolsOfEveryProject(context, projects, query, signal);
    return { session: context.session, matches, projects, cappedNote };
  }
}

/** Symbols by where they start (then end): the order they appear in the file. */
function inSourceOrder(symbols: DocumentSymbol[]): DocumentSymbol[] {
  return symbols.sort(
    (a, b) =>
      a.range.start.line - b.range.start.line ||
      a.range.start.column - b.range.start.column ||
      a.range.end.line - b.range.end.line ||
      a.range.end.column - b.range.end.column,
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
