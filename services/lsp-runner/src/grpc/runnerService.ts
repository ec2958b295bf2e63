// Thin gRPC handlers: proto request → engine call → proto answer. Errors cross the boundary
// through grpcErrorFromRunner only.
import type { CallContext, ServiceImplementation } from "@lspmesh/grpc";
import { HierarchyRequest_Direction, type Runner } from "@lspmesh/proto";
import type { HierarchyAnswer } from "../engine/answers.js";
import type { QueryEngine } from "../engine/queryEngine.js";
import { invalidArgument } from "../errors.js";
import { withDeadline } from "../lsp/session/requestDeadline.js";
import { grpcErrorFromRunner } from "./errorStatus.js";
import {
  answerStatus,
  codeAction,
  documentSymbol,
  editAnswer,
  hierarchyNode,
  optionalRange,
  positionTarget,
  serverState,
  workspaceEditFrom,
  workspaceRef,
} from "./protoMapping.js";

/** INCOMING means callers / subtypes, OUTGOING callees / supertypes (runner.proto). */
function direction<I extends string, O extends string>(
  value: HierarchyRequest_Direction,
  incoming: I,
  outgoing: O,
): I | O {
  if (value === HierarchyRequest_Direction.INCOMING) return incoming;
  if (value === HierarchyRequest_Direction.OUTGOING) return outgoing;
  throw invalidArgument(`give a direction: INCOMING (${incoming}) or OUTGOING (${outgoing})`);
}

function hierarchyAnswer(answer: HierarchyAnswer) {
  return { status: answerStatus(answer.status), root: answer.root ? hierarchyNode(answer.root) : undefined };
}

/** What Describe answers: this runner's id and the languages (with extensions) it serves. */
export interface RunnerDescriptionFields {
  readonly runnerId: string;
  readonly languages: ReadonlyArray<{ readonly id: string; readonly extensions: readonly string[] }>;
}

export function runnerService(
  engine: QueryEngine,
  description: RunnerDescriptionFields,
): ServiceImplementation<typeof Runner.method> {
  // The caller's gRPC deadline rides on the signal: server requests time out early enough to
  // probe (and restart) a hung server and still answer before the caller gives up.
  const guarded =
    <Request, R>(handler: (request: Request, context: CallContext) => Promise<R>) =>
    (request: Request, context: CallContext) =>
      handler(request, { ...context, signal: withDeadline(context.signal, context.deadlineMs) }).catch(
        grpcErrorFromRunner,
      );

  const locations = (kind: "definition" | "typeDefinition" | "implementation") =>
    guarded(
      async (
        request: { workspace?: Parameters<typeof workspaceRef>[0]; at?: Parameters<typeof positionTarget>[0] },
        context: { signal: AbortSignal },
      ) => {
        const answer = await engine.navigation.locations({
          kind,
          ref: workspaceRef(request.workspace),
          at: positionTarget(request.at),
          signal: context.signal,
        });
        return { status: answerStatus(answer.status), locations: answer.locations };
      },
    );

  return {
    describe: async () => ({
      runnerId: description.runnerId,
      languages: description.languages.map((language) => ({ ...language, extensions: [...language.extensions] })),
    }),
    findDefinition: locations("definition"),
    findTypeDefinition: locations("typeDefinition"),
    findImplementations: locations("implementation"),
    findReferences: guarded(async (request, context) => {
      const answer = await engine.navigation.references({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        includeDeclaration: request.includeDeclaration,
        limit: request.limit,
        offset: request.offset,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), locations: answer.locations, total: answer.total };
    }),
    hover: guarded(async (request, context) => {
      const answer = await engine.navigation.hover({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), contents: answer.contents, range: answer.range };
    }),
    documentSymbols: guarded(async (request, context) => {
      const answer = await engine.navigation.documentSymbols({
        ref: workspaceRef(request.workspace),
        file: request.file,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), symbols: answer.symbols.map(documentSymbol) };
    }),
    workspaceSymbols: guarded(async (request, context) => {
      const answer = await engine.navigation.workspaceSymbols({
        ref: workspaceRef(request.workspace),
        query: request.query,
        languageId: request.language,
        limit: request.limit,
        signal: context.signal,
        onlyLanguages: request.languages,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
    diagnostics: guarded(async (request, context) => {
      const answer = await engine.diagnostics.diagnostics({
        ref: workspaceRef(request.workspace),
        files: request.files,
        waitMs: request.waitMs,
        signal: context.signal,
        onlyLanguages: request.languages,
      });
      return { ...answer, status: answerStatus(answer.status), epoch: BigInt(answer.epoch) };
    }),
    workspaceStatus: guarded(async (request) => {
      const languages = await engine.status.workspaceStatus(workspaceRef(request.workspace));
      return { languages: languages.map((l) => ({ ...l, state: serverState(l.state) })) };
    }),
    completions: guarded(async (request, context) => {
      const answer = await engine.assistance.completion({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        limit: request.limit,
        resolve: request.resolve,
        signal: context.signal,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
    signatureHelp: guarded(async (request, context) => {
      const answer = await engine.assistance.signatureHelp({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        signal: context.signal,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
    inlayHints: guarded(async (request, context) => {
      const answer = await engine.assistance.inlayHints({
        ref: workspaceRef(request.workspace),
        file: request.file,
        range: optionalRange(request.range),
        signal: context.signal,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
    codeActions: guarded(async (request, context) => {
      const answer = await engine.editing.codeActions({
        ref: workspaceRef(request.workspace),
        file: request.file,
        range: optionalRange(request.range),
        kinds: request.kinds,
        applyTitle: request.applyTitle,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), actions: answer.actions.map(codeAction), applied: answer.applied };
    }),
    formatDocument: guarded(async (request, context) => {
      const options =
        request.tabSize > 0 ? { tabSize: request.tabSize, insertSpaces: request.insertSpaces } : undefined;
      const answer = await engine.editing.format({
        ref: workspaceRef(request.workspace),
        file: request.file,
        options,
        apply: request.apply,
        signal: context.signal,
      });
      return editAnswer(answer);
    }),
    renameSymbol: guarded(async (request, context) => {
      const answer = await engine.editing.renameSymbol({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        newName: request.newName,
        apply: request.apply,
        signal: context.signal,
      });
      return editAnswer(answer);
    }),
    renameFile: guarded(async (request, context) => {
      const answer = await engine.editing.renameFile({
        ref: workspaceRef(request.workspace),
        file: request.file,
        newFile: request.newFile,
        apply: request.apply,
        signal: context.signal,
      });
      return editAnswer(answer);
    }),
    applyWorkspaceEdit: guarded(async (request) => {
      const answer = await engine.editing.applyEdit({
        ref: workspaceRef(request.workspace),
        edit: workspaceEditFrom(request.edit),
      });
      return editAnswer(answer);
    }),
    callHierarchy: guarded(async (request, context) => {
      const answer = await engine.hierarchies.callHierarchy({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        direction: direction(request.direction, "incoming", "outgoing"),
        depth: request.depth,
        signal: context.signal,
      });
      return hierarchyAnswer(answer);
    }),
    typeHierarchy: guarded(async (request, context) => {
      const answer = await engine.hierarchies.typeHierarchy({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        direction: direction(request.direction, "subtypes", "supertypes"),
        depth: request.depth,
        signal: context.signal,
      });
      return hierarchyAnswer(answer);
    }),
  };
}
