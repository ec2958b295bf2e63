// Operations that produce workspace edits: code actions, formatting, symbol rename, file rename.
// Each previews by default and applies on request through the EditApplier.

import { pathToFileURL } from "node:url";
import type {
  Command,
  CodeAction as LspCodeAction,
  Diagnostic as LspDiagnostic,
  Range as LspRange,
} from "vscode-languageserver-protocol";
import {
  CodeActionRequest,
  CodeActionResolveRequest,
  DocumentFormattingRequest,
  PrepareRenameRequest,
  RenameRequest,
  WillRenameFilesRequest,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { diagnosticsSettleMs } from "../lsp/languages/languageServerConfig.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { fromLspRange, toLspRange } from "../lsp/session/positionEncoding.js";
import { isServerBreakdown } from "../lsp/session/serverErrors.js";
import { lookupSetting } from "../lsp/session/serverRequests.js";
import { isTsserverRefactoring, tsserverRefactorEdit } from "../lsp/session/tsserverRefactor.js";
import type {
  AnswerStatus,
  CodeAction,
  CodeActionsAnswer,
  EditAnswer,
  Range,
  RenameTarget,
  WorkspaceEdit,
  WorkspaceRef,
} from "./answers.js";
import type { EditApplier } from "./editApplier.js";
import {
  type DocumentContext,
  type EngineContext,
  type ProjectLoad,
  requireCapability,
  unsupported,
} from "./engineContext.js";
import { invalidRenameReason, wordAt } from "./identifiers.js";
import type { ApplyEditQuery, CodeActionsQuery, FormatQuery, RenameFileQuery, RenameSymbolQuery } from "./queries.js";
import { keptNameNote } from "./renameAliases.js";
import { changingEdits } from "./textEdits.js";
import { emptyEdit, fromLspWorkspaceEdit, isEmptyEdit } from "./workspaceEdits.js";

/** How long code actions wait for the diagnostics of the file's current content, in ms (default 5 000). */
const CODE_ACTION_DIAGNOSTICS_WAIT_MS = 5_000;
/** Code actions resolved (codeAction/resolve) for a preview, at most (default 20). */
const MAX_RESOLVED_ACTIONS = 20;
/** Formatting options when the caller gives none and the language configures none. */
const DEFAULT_FORMATTING = { tabSize: 2, insertSpaces: true };

export class EditingQueries {
  constructor(
    private readonly engine: EngineContext,
    private readonly applier: EditApplier,
  ) {}

  /**
   * The server's code actions for a range, with the diagnostics overlapping it as context (quick
   * fixes need them). `applyTitle` applies the action with exactly that title.
   */
  async codeActions({ ref, file, range, kinds, applyTitle, signal }: CodeActionsQuery): Promise<CodeActionsAnswer> {
    const context = await this.engine.openDocument(ref, file);
    requireCapability(context.session, "codeActionProvider", CodeActionRequest.method);
    const wanted = this.engine.resolveRange(context, range);
    const { session, document } = context;
    const lspRange = toLspRange(document.lines, wanted, session.encoding);
    const stored =
      (await session.diagnostics.waitForNewer(
        document.uri,
        document.syncedAt,
        CODE_ACTION_DIAGNOSTICS_WAIT_MS,
        diagnosticsSettleMs(session.language),
        signal,
      )) ?? session.diagnostics.get(document.uri);
    const diagnostics = (stored?.diagnostics ?? []).filter((d: LspDiagnostic) => overlaps(d.range, lspRange));
    const result = await this.engine.query(
      session,
      CodeActionRequest.type,
      {
        textDocument: { uri: document.uri },
        range: lspRange,
        context: { diagnostics, only: kinds.length > 0 ? kinds : undefined, triggerKind: 1 },
      },
      signal,
    );
    const canResolve =
      typeof session.capabilities.codeActionProvider === "object" &&
      Boolean(session.capabilities.codeActionProvider.resolveProvider);
    let resolvable = MAX_RESOLVED_ACTIONS;
    const actions: CodeAction[] = [];
    for (let action of result ?? []) {
      // The client filters by kind (LSP: "actions not of this kind are filtered out by the client"):
      // typescript-language-server's quick fixes come whatever `only` says.
      if (!ofKinds(action, kinds)) continue;
      if (isCodeAction(action) && !action.edit && action.data !== undefined && canResolve && resolvable-- > 0) {
        action = await this.engine.query(session, CodeActionResolveRequest.type, action, signal).catch(() => action);
      }
      if (isCodeAction(action) && !action.edit && isTsserverRefactoring(action.command) && resolvable-- > 0) {
        action = await this.refactoringEdit(session, action, action.command, signal);
      }
      actions.push(await this.convertAction(context, action));
    }
    let applied = false;
    let note = "";
    if (applyTitle) {
      const chosen = actions.find((action) => action.title === applyTitle);
      if (!chosen) {
        const titles = actions
          .map((a) => `'${a.title}'`)
          .slice(0, 10)
          .join(", ");
        throw new RunnerError(
          "NOT_FOUND",
          `no code action titled '${applyTitle}' for this range; ${titles ? `available: ${titles}` : "the server offers none here"}`,
        );
      }
      if (chosen.disabledReason) {
        throw new RunnerError("INVALID_ARGUMENT", `'${chosen.title}' cannot be applied: ${chosen.disabledReason}`);
      }
      if (isEmptyEdit(chosen.edit) && chosen.command) {
        throw new RunnerError(
          "UNSUPPORTED",
          `'${chosen.title}' works by running the server command '${chosen.command}', which lspmesh does not run; choose an action with an edit`,
        );
      }
      if (isEmptyEdit(chosen.edit)) note = `'${chosen.title}' changes nothing here; nothing was written`;
      else {
        await this.applier.apply(ref, chosen.edit);
        applied = true;
      }
    }
    const answer = this.engine.withStatus<CodeActionsAnswer>(
      session,
      { actions, applied },
      { empty: actions.length === 0 },
    );
    answer.status.note = [note, answer.status.note].filter(Boolean).join("; ");
    return answer;
  }

  async format({ ref, file, options, apply, signal }: FormatQuery): Promise<EditAnswer> {
    const context = await this.engine.openDocument(ref, file);
    requireCapability(context.session, "documentFormattingProvider", DocumentFormattingRequest.method);
    const configured = lookupSetting(context.session.language.settings ?? {}, "formattingOptions");
    const formatting = options ?? (isFormatting(configured) ? configured : DEFAULT_FORMATTING);
    const edits = await this.engine.query(
      context.session,
      DocumentFormattingRequest.type,
      { textDocument: { uri: context.document.uri }, options: formatting },
      signal,
    );
    const edit = await fromLspWorkspaceEdit(context.paths, context.session, {
      changes: edits && edits.length > 0 ? { [context.document.uri]: edits } : {},
    });
    // Formatters may answer with edits that rewrite whitespace as it is: only real changes count.
    for (const fileEdit of edit.files) {
      fileEdit.edits = changingEdits(context.document.text, fileEdit.edits, fileEdit.file);
    }
    edit.files = edit.files.filter((fileEdit) => fileEdit.edits.length > 0);
    return this.finish(ref, context, edit, apply);
  }

  /** textDocument/prepareRename first (where offered), then textDocument/rename. */
  async renameSymbol({ ref, at, newName, apply, signal }: RenameSymbolQuery): Promise<EditAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    const { session, document } = context;
    requireCapability(session, "renameProvider", RenameRequest.method);
    const resolved = this.engine.resolvePosition(context, at);
    // Uses in other projects are renamed only when those projects are loaded.
    const projects = await this.engine.loadProjects(context, this.engine.nameAt(context, resolved));
    const params = this.engine.positionParams(context, resolved);
    const where = `${context.file.path}:${resolved.line}:${resolved.column}`;
    let target: RenameTarget | undefined;
    const provider = session.capabilities.renameProvider;
    if (typeof provider === "object" && provider.prepareProvider) {
      const prepared = await refusedAsInvalid(
        this.engine.query(session, PrepareRenameRequest.type, params, signal),
        `nothing can be renamed at ${where}`,
      );
      if (!prepared)
        throw new RunnerError("INVALID_ARGUMENT", `nothing can be renamed at ${where}; point at a symbol's name`);
      const range = "range" in prepared ? prepared.range : "start" in prepared ? prepared : undefined;
      if (range) {
        const converted = fromLspRange(document.lines, range, session.encoding);
        target = {
          range: converted,
          placeholder: "placeholder" in prepared ? prepared.placeholder : textOf(document.lines, converted),
        };
      }
    }
    const current = target?.placeholder ?? wordAt(document.lines[resolved.line - 1] ?? "", resolved.column);
    // The file's own language (javascript in a .js file), which its rules and the wording follow.
    const reason = invalidRenameReason(document.languageId || session.language.id, current, newName);
    if (reason) throw new RunnerError("INVALID_ARGUMENT", `cannot rename '${current}' to '${newName}': ${reason}`);
    if (current === newName)
      throw new RunnerError("INVALID_ARGUMENT", `'${current}' already has that name; give a new one`);
    const result = await refusedAsInvalid(
      this.engine.query(session, RenameRequest.type, { ...params, newName }, signal),
      `cannot rename at ${where}`,
    );
    const edit = await fromLspWorkspaceEdit(context.paths, session, result);
    const answer = await this.finish(ref, context, edit, apply, at.symbol ? resolved : undefined, projects);
    const kept = keptNameNote(edit, current, newName);
    if (kept) answer.status.note = [answer.status.note, kept].filter((note) => note).join("; ");
    return { ...answer, rename: target };
  }

  /** workspace/willRenameFiles for the import updates, then the move, then the servers are told. */
  async renameFile({ ref, file, newFile, apply, signal }: RenameFileQuery): Promise<EditAnswer> {
    const context = await this.engine.openDocument(ref, file);
    const { session } = context;
    if (!session.capabilities.workspace?.fileOperations?.willRename) {
      throw unsupported(
        session,
        'workspace/willRenameFiles (updating imports when a file moves); move it with apply_workspace_edit (operations: [{ kind: "rename", file, new_file }]) and update the imports that name it (search_text finds them)',
      );
    }
    const target = await context.paths.resolveNewFile(newFile);
    // Importers are found in every project the server has loaded (tsserver): load them all first,
    // files outside every tsconfig/jsconfig included, or a move would leave their imports broken.
    const projects = await this.engine.loadProjects(context);
    const result = await this.engine.query(
      session,
      WillRenameFilesRequest.type,
      {
        files: [{ oldUri: context.document.uri, newUri: pathToFileURL(target.absolute).href }],
      },
      signal,
    );
    const edit = await fromLspWorkspaceEdit(context.paths, session, result);
    edit.operations.push({ kind: "rename", file: context.file.path, newFile: target.path });
    return this.finish(ref, context, edit, apply, undefined, projects);
  }

  /** Applies a caller's edit (e.g. a preview from before) and syncs the servers. */
  async applyEdit({ ref, edit }: ApplyEditQuery): Promise<EditAnswer> {
    if (isEmptyEdit(edit))
      throw new RunnerError("INVALID_ARGUMENT", "the edit is empty: give file edits or operations");
    await this.applier.apply(ref, edit);
    const sessions = await this.engine.options.sessions.sessionsOf(ref.tenant, ref.workspace);
    return { status: this.engine.combinedStatus(sessions), edit, applied: true };
  }

  private async finish(
    ref: WorkspaceRef,
    context: DocumentContext,
    edit: WorkspaceEdit,
    apply: boolean,
    resolved?: Range["start"],
    projects?: ProjectLoad,
  ): Promise<EditAnswer> {
    const empty = isEmptyEdit(edit);
    const preview = this.engine.withStatus<EditAnswer>(
      context.session,
      { edit: empty ? emptyEdit() : edit, applied: false },
      // A rename (projects given) may miss uses elsewhere even when it edits one file.
      { empty, resolved, projects, fileOnly: !projects && changesOnly(edit, context.file.path) },
    );
    if (!apply || empty) return preview;
    // A workspace-wide edit (a rename) computed from a partial view would change only some of the
    // uses: never written. Single-file edits (formatting) do not depend on the rest of the workspace.
    if (projects && preview.status.partial) throw partialEditRefusal(preview.status);
    await this.applier.apply(ref, edit);
    return { ...preview, applied: true };
  }

  /** A typescript-language-server refactoring with tsserver's edit in place of its command (tsserverRefactor.ts). */
  private async refactoringEdit(
    session: LanguageSession,
    action: LspCodeAction,
    command: Command,
    signal: AbortSignal | undefined,
  ): Promise<LspCodeAction> {
    const { command: _run, ...rest } = action;
    try {
      const found = await tsserverRefactorEdit(
        (method, params) => this.engine.query(session, method, params, signal),
        command,
      );
      return "edit" in found ? { ...rest, edit: found.edit } : { ...rest, disabled: { reason: found.notApplicable } };
    } catch (error) {
      // tsserver refusing or failing this one refactoring leaves the others listed; a timeout does not.
      if (!(error instanceof RunnerError) || !["INVALID_ARGUMENT", "SERVER_FAILED"].includes(error.code)) throw error;
      return { ...rest, disabled: { reason: `tsserver could not compute its edit (${error.message})` } };
    }
  }

  private async convertAction(context: DocumentContext, action: LspCodeAction | Command): Promise<CodeAction> {
    if (!isCodeAction(action)) {
      return {
        title: action.title,
        kind: "",
        preferred: false,
        edit: emptyEdit(),
        command: action.command,
        disabledReason: "",
      };
    }
    let edit = emptyEdit();
    let disabledReason = action.disabled?.reason ?? "";
    try {
      edit = await fromLspWorkspaceEdit(context.paths, context.session, action.edit);
    } catch (error) {
      if (!(error instanceof RunnerError)) throw error;
      disabledReason = error.message;
    }
    return {
      title: action.title,
      kind: action.kind ?? "",
      preferred: Boolean(action.isPreferred),
      edit,
      command: action.command?.command ?? "",
      disabledReason,
    };
  }
}

/** Whether the action is of one of the kinds asked for (a kind or one below it: `refactor` holds `refactor.extract`); all when none are. */
function ofKinds(action: LspCodeAction | Command, kinds: readonly string[]): boolean {
  if (kinds.length === 0) return true;
  const kind = isCodeAction(action) ? (action.kind ?? "") : "";
  return kinds.some((wanted) => kind === wanted || kind.startsWith(`${wanted}.`));
}

function isCodeAction(action: LspCodeAction | Command): action is LspCodeAction {
  return typeof (action as Command).command !== "string";
}

function isFormatting(value: unknown): value is { tabSize: number; insertSpaces: boolean } {
  const options = value as { tabSize?: unknown; insertSpaces?: unknown } | null;
  return typeof options?.tabSize === "number" && typeof options.insertSpaces === "boolean";
}

function overlaps(a: LspRange, b: LspRange): boolean {
  const before = (x: LspRange["start"], y: LspRange["start"]) =>
    x.line < y.line || (x.line === y.line && x.character < y.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/** A server refusing a rename (an error answer) is the caller's problem, said in the server's words. */
async function refusedAsInvalid<T>(request: Promise<T>, what: string): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof RunnerError && error.code === "SERVER_FAILED") {
      const said = /failed with message: (.*)$/s.exec(error.message)?.[1] ?? error.message;
      // The server broke on it (pyright's stack on a 76 000-function module): not the caller's argument.
      if (isServerBreakdown(said)) throw error;
      throw new RunnerError("INVALID_ARGUMENT", `${what}: ${said}`);
    }
    throw error;
  }
}

function textOf(lines: readonly string[], range: Range): string {
  if (range.start.line !== range.end.line) return "";
  return [...(lines[range.start.line - 1] ?? "")].slice(range.start.column - 1, range.end.column - 1).join("");
}

/**
 * Why an edit computed from a partial view of the workspace is not written: it would change only
 * some of the uses. While the server still loads, retrying helps; a view that stays partial (no
 * compile_commands.json, projects over the limit) needs what the note names fixed first.
 */
export function partialEditRefusal(status: AnswerStatus): RunnerError {
  if (status.state === "starting" || status.state === "indexing") {
    return new RunnerError(
      "SERVER_STARTING",
      `the ${status.language} server has not loaded the whole workspace yet (${status.note}); nothing was written: retry shortly, or preview with apply: false`,
    );
  }
  return new RunnerError(
    "UNSUPPORTED",
    `the ${status.language} server does not see the whole workspace (${status.note}), so the edit may miss uses; nothing was written: fix what the note names, or preview with apply: false, check the edit and write it with apply_workspace_edit`,
  );
}

/** An edit of one file's own text and nothing else (formatting): no other file's state bears on it. */
function changesOnly(edit: WorkspaceEdit, file: string): boolean {
  return edit.operations.length === 0 && edit.files.every((fileEdit) => fileEdit.file === file);
}
