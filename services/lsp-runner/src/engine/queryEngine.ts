// Answers lspmesh queries with real language servers: finds the workspace and the file, picks the
// language, syncs the document, resolves the position, asks the server and converts the answer.
// Knows LSP and the filesystem; knows nothing of gRPC or MCP.
import { fileURLToPath } from "node:url";
import type {
  Hover,
  LocationLink,
  Diagnostic as LspDiagnostic,
  DocumentSymbol as LspDocumentSymbol,
  Location as LspLocation,
  WorkspaceSymbol as LspWorkspaceSymbol,
  MarkedString,
  MarkupContent,
  ServerCapabilities,
  SymbolInformation,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { LanguageRegistry, LanguageServerConfig } from "../lsp/languageRegistry.js";
import type { LanguageSession } from "../lsp/languageSession.js";
import type { OpenDocument } from "../lsp/openDocument.js";
import { codePointLength, fromLspRange, type Position, toLspPosition } from "../lsp/positionEncoding.js";
import type { SessionManager } from "../lsp/sessionManager.js";
import { locateSymbol } from "../lsp/symbolLocator.js";
import { listSourceFiles } from "../workspace/sourceFiles.js";
import type { WorkspaceLocator } from "../workspace/workspaceLocator.js";
import { type ResolvedFile, WorkspacePaths } from "../workspace/workspacePaths.js";
import type {
  AnswerStatus,
  Diagnostic,
  DiagnosticsAnswer,
  DocumentSymbol,
  DocumentSymbolsAnswer,
  FileDiagnostics,
  HoverAnswer,
  LanguageStatus,
  Location,
  LocationsAnswer,
  PositionTarget,
  ReferencesAnswer,
  WorkspaceRef,
  WorkspaceSymbolsAnswer,
} from "./answers.js";
import { FileLines, snippetOf } from "./fileLines.js";

/** Files opened for a whole-workspace diagnostics request, at most (default 200). */
const WORKSPACE_DIAGNOSTICS_FILE_LIMIT = 200;
/** How long a query waits for an indexing server before answering anyway, in ms (default 20 000). */
const READY_WAIT_MS = 20_000;
/** Workspace symbols returned when the caller gives no limit (default 100). */
const DEFAULT_SYMBOL_LIMIT = 100;

export type LocationKind = "definition" | "typeDefinition" | "implementation";

const LOCATION_METHODS: Record<LocationKind, { method: string; capability: keyof ServerCapabilities }> = {
  definition: { method: "textDocument/definition", capability: "definitionProvider" },
  typeDefinition: { method: "textDocument/typeDefinition", capability: "typeDefinitionProvider" },
  implementation: { method: "textDocument/implementation", capability: "implementationProvider" },
};

interface DocumentContext {
  paths: WorkspacePaths;
  file: ResolvedFile;
  session: LanguageSession;
  document: OpenDocument;
}

export interface QueryEngineOptions {
  locator: WorkspaceLocator;
  languages: LanguageRegistry;
  sessions: SessionManager;
}

export class QueryEngine {
  constructor(private readonly options: QueryEngineOptions) {}

  async locations(kind: LocationKind, ref: WorkspaceRef, at: PositionTarget, signal?: AbortSignal) {
    const { method, capability } = LOCATION_METHODS[kind];
    const context = await this.openDocument(ref, at.file);
    requireCapability(context.session, capability, method);
    const resolved = this.resolvePosition(context, at);
    const result = await this.query<LspLocation | LspLocation[] | LocationLink[] | null>(
      context.session,
      method,
      this.positionParams(context, resolved),
      signal,
    );
    const converted = await this.convertLocations(context, normaliseLocations(result));
    return this.withStatus<LocationsAnswer>(
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
    const context = await this.openDocument(ref, at.file);
    requireCapability(context.session, "referencesProvider", "textDocument/references");
    const resolved = this.resolvePosition(context, at);
    const result = await this.query<LspLocation[] | null>(
      context.session,
      "textDocument/references",
      { ...this.positionParams(context, resolved), context: { includeDeclaration } },
      signal,
    );
    const converted = await this.convertLocations(context, result ?? []);
    const total = converted.locations.length;
    const locations = limit > 0 ? converted.locations.slice(0, limit) : converted.locations;
    return this.withStatus<ReferencesAnswer>(
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
    const context = await this.openDocument(ref, at.file);
    requireCapability(context.session, "hoverProvider", "textDocument/hover");
    const resolved = this.resolvePosition(context, at);
    const result = await this.query<Hover | null>(
      context.session,
      "textDocument/hover",
      this.positionParams(context, resolved),
      signal,
    );
    const contents = result ? hoverText(result.contents) : "";
    const range = result?.range
      ? fromLspRange(context.document.lines, result.range, context.session.encoding)
      : undefined;
    return this.withStatus<HoverAnswer>(
      context.session,
      { contents, range },
      {
        empty: contents === "",
        resolved: at.symbol ? resolved : undefined,
      },
    );
  }

  async documentSymbols(ref: WorkspaceRef, file: string, signal?: AbortSignal): Promise<DocumentSymbolsAnswer> {
    const context = await this.openDocument(ref, file);
    requireCapability(context.session, "documentSymbolProvider", "textDocument/documentSymbol");
    const result = await this.query<LspDocumentSymbol[] | SymbolInformation[] | null>(
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
    return this.withStatus<DocumentSymbolsAnswer>(context.session, { symbols }, { empty: symbols.length === 0 });
  }

  async workspaceSymbols(
    ref: WorkspaceRef,
    query: string,
    languageId: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<WorkspaceSymbolsAnswer> {
    const paths = await this.workspacePaths(ref);
    const language = await this.pickWorkspaceLanguage(paths, languageId);
    // Project-based servers (tsserver) answer only once a file of the project is open.
    const anchor = await this.firstFileOf(paths, language);
    if (!anchor) throw new RunnerError("NOT_FOUND", `the workspace has no ${language.id} files`);
    const context = await this.openDocument(ref, anchor, paths);
    requireCapability(context.session, "workspaceSymbolProvider", "workspace/symbol");
    const result = await this.query<Array<SymbolInformation | LspWorkspaceSymbol> | null>(
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
      const location = await this.convertLocation(paths, lines, context.session, symbol.location.uri, range);
      if (!location) {
        omitted++;
        continue;
      }
      symbols.push({ name: symbol.name, kind: symbol.kind, containerName: symbol.containerName ?? "", location });
    }
    return this.withStatus<WorkspaceSymbolsAnswer>(
      context.session,
      { symbols },
      { empty: symbols.length === 0, omitted },
    );
  }

  async diagnostics(
    ref: WorkspaceRef,
    files: string[],
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<DiagnosticsAnswer> {
    const paths = await this.workspacePaths(ref);
    let targets = files;
    let truncatedNote = "";
    if (targets.length === 0) {
      const listed = await listSourceFiles(
        paths.root,
        new Set(this.options.languages.extensions()),
        WORKSPACE_DIAGNOSTICS_FILE_LIMIT,
      );
      targets = listed.files;
      if (listed.truncated) {
        truncatedNote = `only the first ${WORKSPACE_DIAGNOSTICS_FILE_LIMIT} source files were checked; name files to check others`;
      }
    }
    const contexts = await Promise.all(targets.map((file) => this.openDocument(ref, file, paths)));
    const deadline = Date.now() + waitMs;
    const results = await Promise.all(
      contexts.map(async (context): Promise<FileDiagnostics> => {
        const { session, document } = context;
        const stored = await session.diagnostics.waitForNewer(
          document.uri,
          document.syncedAt,
          Math.max(0, deadline - Date.now()),
          session.diagnosticsSettleMs(),
          signal,
        );
        const latest = stored ?? session.diagnostics.get(document.uri);
        return {
          file: context.file.path,
          version: document.version,
          contentSha256: document.hash,
          fresh: stored !== undefined,
          diagnostics: (latest?.diagnostics ?? []).map((d) => convertDiagnostic(d, document.lines, session)),
        };
      }),
    );
    const sessions = [...new Set(contexts.map((c) => c.session))];
    const stale = results.filter((r) => !r.fresh).map((r) => r.file);
    const status = this.combinedStatus(sessions);
    if (stale.length > 0) {
      status.partial = true;
      status.note = [
        `no diagnostics newer than the current content of ${stale.join(", ")} arrived within ${waitMs} ms (the server may still be checking, or publishes nothing when a clean file stays clean); raise wait_ms`,
        status.note,
      ]
        .filter(Boolean)
        .join("; ");
    }
    if (truncatedNote) {
      status.partial = true;
      status.note = [truncatedNote, status.note].filter(Boolean).join("; ");
    }
    return { status, files: results, epoch: sessions.reduce((max, s) => Math.max(max, s.startedAt), 0) };
  }

  async workspaceStatus(ref: WorkspaceRef): Promise<LanguageStatus[]> {
    await this.workspacePaths(ref);
    const sessions = await this.options.sessions.sessionsOf(ref.tenant, ref.workspace);
    return sessions.map((session) => ({
      language: session.language.id,
      state: session.state,
      server: session.serverName,
      progress: session.progress.summary(),
      lastError: session.lastError,
      openDocuments: session.openDocumentCount,
    }));
  }

  // -------------------------------------------------------------------------------------------

  /**
   * Asks once the server is idle; an answer given while it was still indexing (tsserver answers
   * from a half-loaded project) is asked again once indexing ends, within READY_WAIT_MS.
   */
  private async query<R>(session: LanguageSession, method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    await session.waitUntilIdle(READY_WAIT_MS, signal);
    const answer = await session.request<R>(method, params, signal);
    if (session.state !== "indexing") return answer;
    if (!(await session.waitUntilIdle(READY_WAIT_MS, signal))) return answer;
    return session.request<R>(method, params, signal);
  }

  private async workspacePaths(ref: WorkspaceRef): Promise<WorkspacePaths> {
    const dir = await this.options.locator.locate(ref.tenant, ref.workspace);
    return WorkspacePaths.open(dir);
  }

  private async openDocument(ref: WorkspaceRef, path: string, known?: WorkspacePaths): Promise<DocumentContext> {
    const paths = known ?? (await this.workspacePaths(ref));
    const file = await paths.resolveFile(path);
    const match = this.options.languages.forFile(file.path);
    if (!match) {
      const known = this.options.languages.extensions().join(", ");
      throw new RunnerError(
        "NO_LANGUAGE_SERVER",
        `no language server is configured for '${file.path}'; configured extensions: ${known}`,
      );
    }
    const session = await this.options.sessions.get({ ...ref, root: paths.root }, match.language);
    const document = await session.syncDocument(file, match.languageId);
    return { paths, file, session, document };
  }

  private resolvePosition(context: DocumentContext, at: PositionTarget): Position {
    const lines = context.document.lines;
    if (at.symbol) return locateSymbol(lines, at.symbol, context.file.path);
    const position = at.position;
    if (!position) throw new RunnerError("INVALID_ARGUMENT", "give 'line' and 'column', or 'symbol'");
    if (position.line < 1 || position.line > lines.length) {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        `line ${position.line} is outside ${context.file.path}, which has ${lines.length} lines (lines are 1-based)`,
      );
    }
    const length = codePointLength(lines[position.line - 1] ?? "");
    if (position.column < 1 || position.column > length + 1) {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        `column ${position.column} is outside line ${position.line} of ${context.file.path}, which has ${length} characters (columns are 1-based code points)`,
      );
    }
    return position;
  }

  private positionParams(context: DocumentContext, position: Position) {
    return {
      textDocument: { uri: context.document.uri },
      position: toLspPosition(context.document.lines, position, context.session.encoding),
    };
  }

  private async convertLocations(context: DocumentContext, locations: LspLocation[]) {
    const lines = new FileLines(context.session);
    const converted: Location[] = [];
    let omitted = 0;
    for (const location of locations) {
      const result = await this.convertLocation(context.paths, lines, context.session, location.uri, location.range);
      if (result) converted.push(result);
      else omitted++;
    }
    return { locations: converted, omitted };
  }

  /** A server location as an lspmesh one; undefined when it lies outside the workspace. */
  private async convertLocation(
    paths: WorkspacePaths,
    lines: FileLines,
    session: LanguageSession,
    uri: string,
    range: LspLocation["range"],
  ): Promise<Location | undefined> {
    if (!uri.startsWith("file:")) return undefined;
    const absolute = fileURLToPath(uri);
    const file = paths.toWorkspacePath(absolute);
    if (file === undefined) return undefined;
    const fileLines = await lines.get(absolute);
    const converted = fromLspRange(fileLines, range, session.encoding);
    return { file, range: converted, snippet: snippetOf(fileLines, converted.start.line) };
  }

  private async pickWorkspaceLanguage(paths: WorkspacePaths, languageId: string): Promise<LanguageServerConfig> {
    if (languageId) {
      const language = this.options.languages.get(languageId);
      if (!language) {
        const known = this.options.languages.languages.map((l) => l.id).join(", ");
        throw new RunnerError("NO_LANGUAGE_SERVER", `unknown language '${languageId}'; configured: ${known}`);
      }
      return language;
    }
    for (const language of this.options.languages.languages) {
      if (await this.firstFileOf(paths, language)) return language;
    }
    throw new RunnerError("NOT_FOUND", "the workspace has no source files of a configured language");
  }

  private async firstFileOf(paths: WorkspacePaths, language: LanguageServerConfig): Promise<string | undefined> {
    const { files } = await listSourceFiles(paths.root, new Set(Object.keys(language.extensions)), 1);
    return files[0];
  }

  private statusOf(session: LanguageSession): AnswerStatus {
    return {
      state: session.state,
      language: session.language.id,
      server: session.serverName,
      partial: false,
      note: "",
    };
  }

  private combinedStatus(sessions: LanguageSession[]): AnswerStatus {
    const notReady = sessions.find((s) => s.state !== "ready");
    const first = notReady ?? sessions[0];
    if (!first) return { state: "ready", language: "", server: "", partial: false, note: "" };
    return this.statusOf(first);
  }

  /** Adds the server state; an empty answer from a server that is not ready is marked partial. */
  private withStatus<T extends { status: AnswerStatus }>(
    session: LanguageSession,
    body: Omit<T, "status">,
    facts: { empty: boolean; resolved?: Position; omitted?: number },
  ): T {
    const status = this.statusOf(session);
    if (facts.resolved) status.resolved = facts.resolved;
    const notes: string[] = [];
    if (session.state !== "ready") {
      status.partial = true;
      const progress = session.progress.summary();
      notes.push(
        `the ${session.language.id} server is ${session.state}${progress ? ` (${progress})` : ""}: ${facts.empty ? "no results yet" : "this answer may be incomplete"}; try again shortly`,
      );
    }
    if (facts.omitted) notes.push(`${facts.omitted} result(s) outside the workspace omitted`);
    status.note = notes.join("; ");
    return { ...body, status } as T;
  }
}

function requireCapability(session: LanguageSession, capability: keyof ServerCapabilities, method: string): void {
  if (!session.capabilities[capability]) {
    throw new RunnerError(
      "UNSUPPORTED",
      `the ${session.language.id} language server (${session.serverName}) does not support ${method}`,
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

function convertDiagnostic(diagnostic: LspDiagnostic, lines: readonly string[], session: LanguageSession): Diagnostic {
  return {
    range: fromLspRange(lines, diagnostic.range, session.encoding),
    severity: diagnostic.severity ?? 1,
    code: diagnostic.code === undefined ? "" : String(diagnostic.code),
    source: diagnostic.source ?? "",
    message: diagnostic.message,
  };
}
