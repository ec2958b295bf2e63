// What every engine query needs: the workspace and file, the session and synced document, the
// resolved position, queries that wait out indexing, and the conversion of server answers.

import { join, posix } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Location as LspLocation, RequestType, ServerCapabilities } from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { OpenDocument } from "../lsp/documents/openDocument.js";
import { locateSymbol } from "../lsp/documents/symbolLocator.js";
import { shownLineCount } from "../lsp/documents/textDocument.js";
import { goBuildExclusion } from "../lsp/languages/goBuildConstraints.js";
import { nestedGoModuleOf } from "../lsp/languages/goModuleScope.js";
import type { LanguageRegistry, LanguageServerConfig } from "../lsp/languages/languageRegistry.js";
import type { SessionManager } from "../lsp/pool/sessionManager.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import {
  codePointLength,
  fromLspRange,
  type Position,
  type Range,
  toLspPosition,
} from "../lsp/session/positionEncoding.js";
import { openLooseFilesProject } from "../lsp/session/tsserverLooseFiles.js";
import { readRegularFileBeneath } from "../workspace/metadata.js";
import type { WorkspaceLocator } from "../workspace/workspaceLocator.js";
import { type ResolvedFile, WorkspacePaths } from "../workspace/workspacePaths.js";
import { AnswerCache, type ServerAnswer } from "./answerCache.js";
import type { AnswerStatus, Location, PositionTarget, WorkspaceRef } from "./answers.js";
import { recoverInterruptedEdits } from "./editJournal.js";
import { externalName, languageLibraryFolders } from "./externalFiles.js";
import { FileLines, snippetOf } from "./fileLines.js";
import { hasWord, wordAt } from "./identifiers.js";
import { openedDocumentsChecked } from "./openedPackages.js";
import {
  firstOpenableFile,
  isProjectBased,
  LOOSE_GROUP,
  MAX_LOOSE_FILES,
  MAX_LOOSE_FILES_OPENED,
  MAX_PROJECTS,
  type ProjectAnchors,
  type ProjectGroup,
  projectAnchors,
} from "./projectAnchors.js";
import { withShownFailure } from "./shownFailure.js";

/** Files left out of a server's view read at most to tell which mention the name asked about. */
const MAX_GAP_FILES_READ = 500;

/** How long a query waits for an indexing server before answering anyway, in ms (default 20 000). */
const READY_WAIT_MS = 20_000;

export interface DocumentContext {
  paths: WorkspacePaths;
  file: ResolvedFile;
  session: LanguageSession;
  document: OpenDocument;
  /** The document was open in the session before this query. */
  wasOpen: boolean;
  /** Why the server's answers about this file may miss or mislead (a Go file of a nested module). */
  fileNote?: string;
}

/** Where a server's location lies: its file as answers name it. */
interface LocationTarget {
  absolute: string;
  /** Workspace-relative, or a shown library's name (external). */
  file: string;
  external: boolean;
}

/** File changes seen (by a watcher, or announced) but maybe not yet told to the servers. */
export interface PendingFileChanges {
  /** Resolves once every change seen so far in the workspace has been applied to its sessions. */
  settle(ref: WorkspaceRef): Promise<void>;
}

export interface EngineOptions {
  locator: WorkspaceLocator;
  languages: LanguageRegistry;
  sessions: SessionManager;
  /** Settled before every query, so that the query sees edits made just before it. */
  changes?: PendingFileChanges;
  /** Told of every workspace a query found (the symbol index follows the workspaces the runner serves). */
  onWorkspaceUsed?: (ref: WorkspaceRef) => void;
  /** Shares and remembers read-only answers (default: a cache of this engine's own). */
  answers?: AnswerCache;
  /** Write tools may change files under `.git/` (default false). */
  allowGitWrites?: boolean;
  log?: (entry: Record<string, unknown>) => void;
}

export class EngineContext {
  readonly answers: AnswerCache;
  /** Per workspace root: edits a crash interrupted, rolled back or finished before first use. */
  private readonly recoveries = new Map<string, Promise<void>>();

  /** Library folders the languages read, shown in answers (externalFiles.ts); found on first use. */
  private libraryFoldersFound: string[] | undefined;

  constructor(readonly options: EngineOptions) {
    this.answers = options.answers ?? new AnswerCache();
  }

  private get libraryFolders(): string[] {
    this.libraryFoldersFound ??= languageLibraryFolders(this.options.languages.languages);
    return this.libraryFoldersFound;
  }

  /**
   * Asks once the server is idle; an answer given while it was still indexing (tsserver answers
   * from a half-loaded project) is asked again once indexing ends, within READY_WAIT_MS. Read-only
   * requests are shared with identical ones in flight and remembered until the session's content
   * changes (AnswerCache).
   */
  async query<P, R>(
    session: LanguageSession,
    type: RequestType<P, R, unknown>,
    params: P,
    signal?: AbortSignal,
  ): Promise<R>;
  async query<R>(session: LanguageSession, method: string, params: unknown, signal?: AbortSignal): Promise<R>;
  async query<R>(
    session: LanguageSession,
    type: RequestType<unknown, R, unknown> | string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<R> {
    const method = typeof type === "string" ? type : type.method;
    return this.answers.answer(
      session,
      method,
      params,
      (shared) => this.ask<R>(session, method, params, shared),
      signal,
    );
  }

  private async ask<R>(
    session: LanguageSession,
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<ServerAnswer<R>> {
    const idleFirst = await session.waitUntilIdle(READY_WAIT_MS, signal);
    let askedWhileReady = session.state === "ready";
    const answer = await session.request<R>(method, params, signal).catch((error: unknown) => {
      throw withShownFailure(error, session.progress.failure ? session.incompleteNote : undefined);
    });
    // "Nothing" from a server that lost part of itself is not an answer (checkProcessTree throws).
    if (isEmptyAnswer(answer)) await session.checkProcessTree();
    if (session.state !== "indexing") return { value: answer, askedWhileReady };
    // Waited READY_WAIT_MS already: a second wait would pass the caller's deadline (30 s).
    if (!idleFirst || !(await session.waitUntilIdle(READY_WAIT_MS, signal)))
      return { value: answer, askedWhileReady: false };
    askedWhileReady = isReady(session);
    return { value: await session.request<R>(method, params, signal), askedWhileReady };
  }

  async workspacePaths(ref: WorkspaceRef): Promise<WorkspacePaths> {
    const dir = await this.options.locator.locate(ref.tenant, ref.workspace);
    this.options.onWorkspaceUsed?.(ref);
    await this.options.changes?.settle(ref);
    const paths = await WorkspacePaths.open(dir);
    await this.recoverEdits(paths.root);
    return paths;
  }

  /** Rolls back (or finishes) edits a crash interrupted in the workspace, once per root. */
  async recoverEditsOf(ref: WorkspaceRef): Promise<void> {
    const paths = await WorkspacePaths.open(await this.options.locator.locate(ref.tenant, ref.workspace));
    await this.recoverEdits(paths.root);
  }

  private async recoverEdits(root: string): Promise<void> {
    let recovery = this.recoveries.get(root);
    if (!recovery) {
      recovery = recoverInterruptedEdits(root).then(
        ({ recovered, refused }) => {
          if (recovered > 0) this.options.log?.({ level: "warn", msg: "interrupted edits undone", root, recovered });
          if (refused.length > 0)
            this.options.log?.({
              level: "warn",
              msg: "edit journals naming paths outside the workspace left alone",
              root,
              refused,
            });
        },
        (error) => {
          // Tried again at the next use: a workspace half edited must not be answered from.
          this.recoveries.delete(root);
          throw error;
        },
      );
      this.recoveries.set(root, recovery);
    }
    await recovery;
  }

  async openDocument(ref: WorkspaceRef, path: string, known?: WorkspacePaths): Promise<DocumentContext> {
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
    const wasOpen = session.document(pathToFileURL(file.absolute).href) !== undefined;
    const document = await session.syncDocument(file, match.languageId);
    const fileNote = await this.fileScopeNote(session, paths.root, file.path, document.text);
    return { paths, file, session, document, wasOpen, ...(fileNote ? { fileNote } : {}) };
  }

  /**
   * gopls reads a file of a module below the workspace's root module as a file alone (no go.work
   * names that module): its imports and its package's other files are not loaded, so what it says
   * about the file may be empty or point at the workspace's code instead of the version required.
   * A file the go tool would not build here (`_windows.go`, `//go:build ignore`) it does not check.
   */
  private async fileScopeNote(
    session: LanguageSession,
    root: string,
    file: string,
    text: string,
  ): Promise<string | undefined> {
    if (session.language.includeConfig !== "go") return undefined;
    const server = `the ${session.language.id} language server`;
    const module = await this.nestedModuleOf(session, root, file);
    if (module)
      return `${file} belongs to the module in ${module}/ (its own go.mod), which ${server} does not load from this workspace: it reads the file alone, so answers about it may miss or mislead; serve ${module} as a workspace of its own, or add a go.work that uses it`;
    const excluded = goBuildExclusion(file, text);
    return excluded
      ? `${file} is not built here: ${excluded}, so ${server} does not check it and answers little or nothing about it; its build tags or GOOS/GOARCH would have to be set in the language's settings (gopls buildFlags, env)`
      : undefined;
  }

  /**
   * A Go file's module below the root, looked up once per file while the session's file layout
   * holds (a go.mod or go.work appearing or going moves it, as for the project scan): not a few
   * stats on every call.
   */
  private nestedModuleOf(session: LanguageSession, root: string, file: string): Promise<string | undefined> {
    let known = this.nestedModules.get(session);
    if (known?.layoutEpoch !== session.layoutEpoch) {
      known = { layoutEpoch: session.layoutEpoch, byFile: new Map() };
      this.nestedModules.set(session, known);
    }
    let module = known.byFile.get(file);
    if (!module) {
      module = nestedGoModuleOf(root, file).catch(() => undefined);
      known.byFile.set(file, module);
    }
    return module;
  }

  private readonly nestedModules = new WeakMap<
    LanguageSession,
    { layoutEpoch: number; byFile: Map<string, Promise<string | undefined>> }
  >();

  resolvePosition(context: DocumentContext, at: PositionTarget): Position {
    if (at.symbol) return locateSymbol(context.document.lines, at.symbol, context.file.path);
    const position = at.position;
    if (!position) throw new RunnerError("INVALID_ARGUMENT", "give 'line' and 'column', or 'symbol'");
    return this.checkPosition(context, position);
  }

  /** A caller's range inside the document; an unset end means the end of the start line. */
  resolveRange(context: DocumentContext, range: { start?: Position; end?: Position } | undefined): Range {
    if (!range?.start) throw new RunnerError("INVALID_ARGUMENT", "give a range: at least its start line and column");
    const start = this.checkPosition(context, range.start);
    const end = range.end
      ? this.checkPosition(context, range.end)
      : { line: start.line, column: codePointLength(context.document.lines[start.line - 1] ?? "") + 1 };
    if (end.line < start.line || (end.line === start.line && end.column < start.column)) {
      throw new RunnerError("INVALID_ARGUMENT", "the range ends before it starts; give start before end");
    }
    return { start, end };
  }

  /** The whole document as a range. */
  documentRange(context: DocumentContext): Range {
    const lines = context.document.lines;
    return {
      start: { line: 1, column: 1 },
      end: { line: lines.length, column: codePointLength(lines[lines.length - 1] ?? "") + 1 },
    };
  }

  private checkPosition(context: DocumentContext, position: Position): Position {
    const lines = context.document.lines;
    if (position.line < 1 || position.line > lines.length) {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        `line ${position.line} is outside ${context.file.path}, which has ${shownLineCount(lines)} lines (lines are 1-based)`,
      );
    }
    const length = codePointLength(lines[position.line - 1] ?? "");
    if (position.column < 1 || position.column > length + 1) {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        `column ${position.column} is outside line ${position.line} of ${context.file.path}, which has ${length} characters (columns are 1-based code points)`,
      );
    }
    return { line: position.line, column: position.column };
  }

  positionParams(context: DocumentContext, position: Position) {
    return {
      textDocument: { uri: context.document.uri },
      position: toLspPosition(context.document.lines, position, context.session.encoding),
    };
  }

  async convertLocations(context: DocumentContext, locations: LspLocation[]) {
    return this.convertLocationPage(context, locations, 0, 0);
  }

  /**
   * A page of a server's locations (`offset`, at most `limit`; 0 = all): every location is judged
   * (the workspace's, a shown library, or withheld) so that `total` and `omitted` count them all,
   * but only the page's are converted (their files read, positions converted, snippets cut).
   */
  async convertLocationPage(context: DocumentContext, locations: LspLocation[], offset: number, limit: number) {
    const lines = new FileLines(context.session);
    const targets = new Map<string, Promise<LocationTarget | undefined>>();
    const kept: Array<{ target: LocationTarget; range: LspLocation["range"] }> = [];
    let omitted = 0;
    for (const location of locations) {
      let target = targets.get(location.uri);
      if (!target) {
        target = this.locationTarget(context.paths, lines, location.uri);
        targets.set(location.uri, target);
      }
      const judged = await target;
      if (judged) kept.push({ target: judged, range: location.range });
      else omitted++;
    }
    const page = kept.slice(offset, limit > 0 ? offset + limit : undefined);
    const converted: Location[] = [];
    for (const { target, range } of page)
      converted.push(await this.renderLocation(lines, context.session, target, range));
    return { locations: converted, total: kept.length, omitted };
  }

  /** A server location as an lspmesh one; undefined when it lies outside the workspace and is not a shown library. */
  async convertLocation(
    paths: WorkspacePaths,
    lines: FileLines,
    session: LanguageSession,
    uri: string,
    range: LspLocation["range"],
    /** Show library files outside the workspace (marked external); hierarchies leave them out. */
    options: { external?: boolean } = {},
  ): Promise<Location | undefined> {
    const target = await this.locationTarget(paths, lines, uri, options);
    return target && this.renderLocation(lines, session, target, range);
  }

  /** Where a server's location lies, as answers name it; undefined when it must not be shown. */
  private async locationTarget(
    paths: WorkspacePaths,
    lines: FileLines,
    uri: string,
    { external: showExternal = true } = {},
  ): Promise<LocationTarget | undefined> {
    if (!uri.startsWith("file:")) return undefined;
    const absolute = fileURLToPath(uri);
    const file = await lines.workspaceFile(paths, absolute);
    if (file !== undefined) return { absolute, file, external: false };
    // Outside the workspace (a symlink pointing out included): only a library of the runner or the
    // system is shown (read-only), and only by a path that is not inside the workspace.
    const external =
      showExternal && paths.toWorkspacePath(absolute) === undefined
        ? externalName(absolute, this.libraryFolders)
        : undefined;
    return external === undefined ? undefined : { absolute, file: external, external: true };
  }

  /** The location with its position converted and its code line: the target file read (once per answer). */
  private async renderLocation(
    lines: FileLines,
    session: LanguageSession,
    target: LocationTarget,
    range: LspLocation["range"],
  ): Promise<Location> {
    const fileLines = await lines.get(target.absolute);
    const converted = fromLspRange(fileLines, range, session.encoding);
    const location: Location = {
      file: target.file,
      range: converted,
      snippet: snippetOf(fileLines, converted.start.line),
    };
    if (target.external) location.external = true;
    return location;
  }

  async pickWorkspaceLanguage(paths: WorkspacePaths, languageId: string): Promise<LanguageServerConfig> {
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

  /** A file of the language a server can be given (not too large, not binary), or undefined. */
  async firstFileOf(paths: WorkspacePaths, language: LanguageServerConfig): Promise<string | undefined> {
    return firstOpenableFile(paths.root, language, this.options.sessions.maxFileBytes);
  }

  /**
   * Opens one file per project of the context's language (once per session and file layout), so that a
   * project-based server has loaded every project before a workspace-wide question. Returns what
   * an answer must admit: projects left unloaded, files that could not be anchors.
   */
  async loadProjects(context: DocumentContext, name?: string): Promise<ProjectLoad> {
    const { session } = context;
    let load = this.projectLoads.get(session);
    // Loaded again once files were created or deleted: a project that appeared has an anchor to open.
    if (load?.layoutEpoch !== session.layoutEpoch) {
      const loading = this.openAnchors(context).catch((): ProjectLoad => ({ notes: [] }));
      load = { layoutEpoch: session.layoutEpoch, load: loading };
      this.projectLoads.set(session, load);
    }
    const [loaded, gap] = await Promise.all([load.load, this.includeGap(context, name)]);
    // gopls loads an opened file's package after didOpen, answering from a partial view meanwhile.
    if (session.language.includeConfig === "go") await openedDocumentsChecked(session);
    return gap ? { ...loaded, notes: [...loaded.notes, ...gap.notes], incomplete: true } : loaded;
  }

  /**
   * What a server's own include/exclude (pyright's) or conventions (gopls's `./...`) leave out of a
   * workspace-wide answer now: the files outside it that are not open (it searches open files too;
   * gopls every file of an open file's folder). With `name`, the identifier asked about, only the
   * files that have it as a word: the others cannot use it. Undefined when none.
   */
  async includeGap(context: DocumentContext, name?: string): Promise<ProjectLoad | undefined> {
    const left = (await this.projectsOf(context).catch(() => undefined))?.outsideInclude;
    if (!left) return undefined;
    const { session, paths } = context;
    const open = new Set(session.openDocuments().flatMap((document) => paths.pathOfUri(document.uri) ?? []));
    const openFolders = new Set([...open].map((file) => posix.dirname(file)));
    let closed = left.outside.filter(
      (file) => !open.has(file) && !(left.byFolder && openFolders.has(posix.dirname(file))),
    );
    const named = name ? await this.gapFilesNaming(session, paths, closed, name) : undefined;
    if (named) closed = named;
    if (closed.length === 0) return undefined;
    const some = `${closed.slice(0, 3).join(", ")}${closed.length > 3 ? ", …" : ""}`;
    const which = named ? ` that mention \`${name}\`` : "";
    const note = `${session.serverName} searches only ${left.searches}: ${closed.length} file(s) left out${which} (${some}) were not searched; ${left.fix}`;
    return { notes: [note], incomplete: true };
  }

  /**
   * The files of `files` that have `name` as a word; undefined (not known: count them all) when
   * there are too many to read or one cannot be read.
   */
  /**
   * filesNaming, read once per name while the session's content holds (its epoch moves on every
   * document opened or changed and every file event): the files left out are the same then, and a
   * references question asked again must not read them all again.
   */
  private gapFilesNaming(
    session: LanguageSession,
    paths: WorkspacePaths,
    files: readonly string[],
    name: string,
  ): Promise<string[] | undefined> {
    let known = this.gapNames.get(session);
    if (known?.contentEpoch !== session.contentEpoch) {
      known = { contentEpoch: session.contentEpoch, byName: new Map() };
      this.gapNames.set(session, known);
    }
    let named = known.byName.get(name);
    if (!named) {
      named = this.filesNaming(paths, files, name);
      known.byName.set(name, named);
    }
    return named;
  }

  private readonly gapNames = new WeakMap<
    LanguageSession,
    { contentEpoch: number; byName: Map<string, Promise<string[] | undefined>> }
  >();

  private async filesNaming(
    paths: WorkspacePaths,
    files: readonly string[],
    name: string,
  ): Promise<string[] | undefined> {
    if (files.length > MAX_GAP_FILES_READ || !/^[\p{L}\p{N}_$]+$/u.test(name)) return undefined;
    const read = await Promise.all(
      files.map((file) =>
        // A tenant's file: never through a symlink or out of the workspace, never past the size cap.
        readRegularFileBeneath(paths.root, join(paths.root, file), this.options.sessions.maxFileBytes).then(
          ({ bytes }) => (bytes ? hasWord(bytes.toString("utf8"), name) : undefined),
          () => undefined,
        ),
      ),
    );
    if (read.some((found) => found === undefined)) return undefined;
    return files.filter((_, index) => read[index]);
  }

  /** The identifier at a position of the context's document ("" when none). */
  nameAt(context: DocumentContext, position: Position): string {
    return wordAt(context.document.lines[position.line - 1] ?? "", position.column);
  }

  private readonly projectLoads = new WeakMap<LanguageSession, { layoutEpoch: number; load: Promise<ProjectLoad> }>();

  /**
   * The projects of a project-based server's workspace (tsserver: per tsconfig.json/jsconfig.json,
   * and the files outside them as one more), found once per session; none for other servers.
   */
  async projectGroups(context: DocumentContext): Promise<readonly ProjectGroup[]> {
    if (!isProjectBased(context.session.language.id)) return [];
    return this.projectsOf(context).then(
      (found) => found.projects,
      () => [],
    );
  }

  /** The workspace's projects as found for the session's server: one scan per session and file layout, shared. */
  private projectsOf(context: DocumentContext): Promise<ProjectAnchors> {
    const { session, paths } = context;
    const cached = this.projectScans.get(session);
    // Scanned again once files were created or deleted (a new file only one project includes).
    if (cached?.layoutEpoch === session.layoutEpoch) return cached.found;
    const found = projectAnchors(paths.root, session.language, this.options.sessions.maxFileBytes);
    found.catch(() => {}); // a failed scan is each caller's to judge
    this.projectScans.set(session, { layoutEpoch: session.layoutEpoch, found });
    return found;
  }

  private readonly projectScans = new WeakMap<
    LanguageSession,
    { layoutEpoch: number; found: Promise<ProjectAnchors> }
  >();

  /**
   * What an answer a project-based server (tsserver) computes in the asked file's own project only
   * (incoming calls, subtypes; unlike references and renames, which it gathers from every loaded
   * project) must admit when the workspace has other projects: partial, and how to reach them.
   * `what` names the results, e.g. "incoming calls".
   */
  async ownProjectOnly(context: DocumentContext, what: string): Promise<ProjectLoad> {
    const others = (await this.projectGroups(context)).length - 1;
    if (others <= 0) return { notes: [] };
    return {
      notes: [
        `${context.session.serverName} gives ${what} from the project of ${context.file.path} only; ${others} other project(s) of the workspace (tsconfig.json, jsconfig.json or files outside them) were not searched: ask from a file of that project too, or use find_references, which searches every project`,
      ],
      incomplete: true,
    };
  }

  private async openAnchors(context: DocumentContext): Promise<ProjectLoad> {
    const found = await this.projectsOf(context);
    const notes: string[] = [];
    const opened: string[] = [];
    // The scan is shared (projectGroups): what fails to open here is added to a copy.
    const skipped = [...found.skipped];
    opened.push(...(await this.openEach(context, found.anchors, skipped)));
    if (found.notLoaded > 0) notes.push(`${found.notLoaded} more project(s) not loaded (the limit is ${MAX_PROJECTS})`);
    // A few files outside the projects of a workspace that has some (a package's tests beside its
    // tsconfig.json include) are opened one by one instead: tsserver makes an external project the
    // default project of every file it holds, so one that pulled a package's sources in through a
    // test's import took them from their project, whose references there were lost (preactjs/signals:
    // 16 uses of core's signal in devtools-ui). Opened alone, each is in an inferred project, last.
    const fewBesideProjects =
      found.projects.some((project) => project.name !== LOOSE_GROUP) &&
      found.looseNotLoaded === 0 &&
      found.looseFiles.length <= MAX_LOOSE_FILES_OPENED;
    if (fewBesideProjects) opened.push(...(await this.openEach(context, found.looseFiles, skipped)));
    const loose = fewBesideProjects
      ? { notes: [], incomplete: false }
      : await this.loadLooseFiles(context, found.looseFiles, found.looseNotLoaded);
    notes.push(...loose.notes);
    if (skipped.length > 0) {
      const listed = skipped.slice(0, 3).map((skip) => `${skip.file} (${skip.reason})`);
      notes.push(`skipped ${skipped.length} file(s): ${listed.join(", ")}${skipped.length > 3 ? ", …" : ""}`);
    }
    return { notes, incomplete: found.notLoaded > 0 || loose.incomplete, anchorUris: opened };
  }

  /** Opens each of `files` but the asked one; the URIs opened. What cannot be opened is added to `skipped`. */
  private async openEach(
    { session, paths, file: asked }: DocumentContext,
    files: readonly string[],
    skipped: Array<{ file: string; reason: string }>,
  ): Promise<string[]> {
    const opened: string[] = [];
    for (const path of files) {
      if (path === asked.path) continue;
      try {
        const file = await paths.resolveFile(path);
        const match = this.options.languages.forFile(file.path);
        if (match) opened.push((await session.syncDocument(file, match.languageId)).uri);
      } catch (error) {
        skipped.push({ file: path, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return opened;
  }

  /**
   * The files under no project config, given to tsserver as one project (tsserverLooseFiles.ts).
   * Other project-based servers know them only once opened or imported: answers say so.
   */
  private async loadLooseFiles(
    { session, paths }: DocumentContext,
    files: readonly string[],
    notLoaded: number,
  ): Promise<{ notes: string[]; incomplete: boolean }> {
    if (files.length + notLoaded <= 1) return { notes: [], incomplete: false };
    const unknown = `file(s) in no tsconfig.json or jsconfig.json`;
    if (session.language.diagnosticsPull !== "tsserverRequest") {
      const note = `${files.length + notLoaded} ${unknown}: the ${session.language.id} server knows them only once opened or imported, so uses in them may be missing (add a jsconfig.json)`;
      return { notes: [note], incomplete: true };
    }
    try {
      const absolute = files.map((file) => join(paths.root, file));
      await openLooseFilesProject((method, params) => this.query(session, method, params), paths.root, absolute);
    } catch (error) {
      const note = `${files.length + notLoaded} ${unknown} were not loaded (${error instanceof Error ? error.message : String(error)}): uses in them may be missing`;
      return { notes: [note], incomplete: true };
    }
    if (notLoaded === 0) return { notes: [], incomplete: false };
    const note = `${notLoaded} more ${unknown} not loaded (the limit is ${MAX_LOOSE_FILES}): uses in them may be missing`;
    return { notes: [note], incomplete: true };
  }

  statusOf(session: LanguageSession): AnswerStatus {
    return {
      state: session.state,
      language: session.language.id,
      server: session.serverName,
      partial: false,
      note: "",
    };
  }

  combinedStatus(sessions: LanguageSession[]): AnswerStatus {
    const notReady = sessions.find((s) => s.state !== "ready");
    const first = notReady ?? sessions[0];
    if (!first) return { state: "ready", language: "", server: "", partial: false, note: "" };
    return this.statusOf(first);
  }

  /**
   * Why an answer from this session may be incomplete, whatever it holds: the server is not ready
   * (still starting or indexing), or it runs without what a complete answer needs. Empty: complete.
   */
  incompleteNotes(session: LanguageSession, empty: boolean, fileOnly = false): string[] {
    const notes: string[] = [];
    // A failure the server shows (gopls cannot load the workspace) is named by incompleteNote: not
    // something that passes by trying again shortly.
    const showsFailure = session.state === "degraded" && session.progress.failure !== "";
    if (session.state !== "ready" && !showsFailure) {
      const progress = session.progress.summary();
      notes.push(
        `the ${session.language.id} server is ${session.state}${progress ? ` (${progress})` : ""}: ${empty ? "no results yet" : "this answer may be incomplete"}; try again shortly`,
      );
    }
    // What the server lacks for a whole-workspace view (a compile database) leaves an answer about one file's own text whole.
    if (session.incompleteNote && !fileOnly) notes.push(session.incompleteNote);
    return notes;
  }

  /** Adds the server state; an empty answer from a server that is not ready is marked partial. */
  withStatus<T extends { status: AnswerStatus }>(
    of: LanguageSession | DocumentContext,
    body: Omit<T, "status">,
    facts: {
      empty: boolean;
      resolved?: Position;
      omitted?: number;
      projects?: ProjectLoad;
      /** Why the server's answer may be cut short (a cap it reached): partial. */
      cappedNote?: string | undefined;
      /** An answer about the file's own text (its outline, highlights, formatting): no other file changes it. */
      fileOnly?: boolean;
    },
  ): T {
    const session = "session" in of ? of.session : of;
    const status = this.statusOf(session);
    if (facts.resolved) status.resolved = facts.resolved;
    const notes = this.incompleteNotes(session, facts.empty, facts.fileOnly);
    // Asked about a file the server reads alone: its answer about that file may miss or mislead.
    if ("session" in of && of.fileNote) notes.push(of.fileNote);
    if (notes.length > 0) status.partial = true;
    if (facts.omitted)
      notes.push(`${facts.omitted} result${facts.omitted === 1 ? "" : "s"} outside your workspaces withheld`);
    if (facts.projects) {
      notes.push(...facts.projects.notes);
      if (facts.projects.incomplete) status.partial = true;
    }
    if (facts.cappedNote) {
      notes.push(facts.cappedNote);
      status.partial = true;
    }
    status.note = notes.join("; ");
    return { ...body, status } as T;
  }
}

export function requireCapability(
  session: LanguageSession,
  capability: keyof ServerCapabilities,
  method: string,
): void {
  if (!session.capabilities[capability]) throw unsupported(session, method);
}

/** The error for a request the session's server does not offer. */
export function unsupported(session: LanguageSession, method: string): RunnerError {
  return new RunnerError(
    "UNSUPPORTED",
    `the ${session.language.id} language server (${session.serverName}) does not support ${method}`,
  );
}

/** Not narrowed by an earlier check: the state changes while a request is awaited. */
function isReady(session: LanguageSession): boolean {
  return session.state === "ready";
}

function isEmptyAnswer(answer: unknown): boolean {
  return answer === null || answer === undefined || (Array.isArray(answer) && answer.length === 0);
}

/** What loading a workspace's projects left out, for the answer's note. */
export interface ProjectLoad {
  notes: string[];
  /** Some projects were not loaded: answers spanning projects may be incomplete. */
  incomplete?: boolean;
  /** Documents opened to load the other projects (not the one asked about). */
  anchorUris?: string[];
}
