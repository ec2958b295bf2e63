// Thin gRPC handlers: proto request → engine call → proto answer. Errors cross the boundary
// through grpcErrorFromRunner only.
import type { ServiceImplementation } from "@lspmesh/grpc";
import { HierarchyRequest_Direction, type Runner } from "@lspmesh/proto";
import type { HierarchyAnswer } from "../engine/answers.js";
import type { QueryEngine } from "../engine/queryEngine.js";
import { invalidArgument } from "../errors.js";
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
  const guarded =
    <Args extends unknown[], R>(handler: (...args: Args) => Promise<R>) =>
    (...args: Args) =>
      handler(...args).catch(grpcErrorFromRunner);

  const locations = (kind: "definition" | "typeDefinition" | "implementation") =>
    guarded(
      async (
        request: { workspace?: Parameters<typeof workspaceRef>[0]; at?: Parameters<typeof positionTarget>[0] },
        context: { signal: AbortSignal },
      ) => {
        const answer = await engine.navigation.locations(
          kind,
          workspaceRef(request.workspace),
          positionTarget(request.at),
          context.signal,
        );
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
      const answer = await engine.navigation.references(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        request.includeDeclaration,
        request.limit,
        context.signal,
      );
      return { status: answerStatus(answer.status), locations: answer.locations, total: answer.total };
    }),
    hover: guarded(async (request, context) => {
      const answer = await engine.navigation.hover(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        context.signal,
      );
      return { status: answerStatus(answer.status), contents: answer.contents, range: answer.range };
    }),
    documentSymbols: guarded(async (request, context) => {
      const answer = await engine.navigation.documentSymbols(
        workspaceRef(request.workspace),
        request.file,
        context.signal,
      );
      return { status: answerStatus(answer.status), symbols: answer.symbols.map(documentSymbol) };
    }),
    workspaceSymbols: guarded(async (request, context) => {
      const answer = await engine.navigation.workspaceSymbols(
        workspaceRef(request.workspace),
        request.query,
        request.language,
        request.limit,
        context.signal,
        request.languages,
      );
      return { status: answerStatus(answer.status), symbols: answer.symbols };
    }),
    diagnostics: guarded(async (request, context) => {
      const answer = await engine.diagnostics.diagnostics(
        workspaceRef(request.workspace),
        request.files,
        request.waitMs,
        context.signal,
        request.languages,
      );
      return { status: answerStatus(answer.status), files: answer.files, epoch: BigInt(answer.epoch) };
    }),
    workspaceStatus: guarded(async (request) => {
      const languages = await engine.status.workspaceStatus(workspaceRef(request.workspace));
      return { languages: languages.map((l) => ({ ...l, state: serverState(l.state) })) };
    }),
    completions: guarded(async (request, context) => {
      const answer = await engine.assistance.completion(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        request.limit,
        request.resolve,
        context.signal,
      );
      return { ...answer, status: answerStatus(answer.status) };
    }),
    signatureHelp: guarded(async (request, context) => {
      const answer = await engine.assistance.signatureHelp(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        context.signal,
      );
      return { ...answer, status: answerStatus(answer.status) };
    }),
    inlayHints: guarded(async (request, context) => {
      const answer = await engine.assistance.inlayHints(
        workspaceRef(request.workspace),
        request.file,
        optionalRange(request.range),
        context.signal,
      );
      return { ...answer, status: answerStatus(answer.status) };
    }),
    codeActions: guarded(async (request, context) => {
      const answer = await engine.editing.codeActions(
        workspaceRef(request.workspace),
        request.file,
        optionalRange(request.range),
        request.kinds,
        request.applyTitle,
        context.signal,
      );
      return { status: answerStatus(answer.status), actions: answer.actions.map(codeAction), applied: answer.applied };
    }),
    formatDocument: guarded(async (request, context) => {
      const options =
        request.tabSize > 0 ? { tabSize: request.tabSize, insertSpaces: request.insertSpaces } : undefined;
      const answer = await engine.editing.format(
        workspaceRef(request.workspace),
        request.file,
        options,
        request.apply,
        context.signal,
      );
      return editAnswer(answer);
    }),
    renameSymbol: guarded(async (request, context) => {
      const answer = await engine.editing.renameSymbol(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        request.newName,
        request.apply,
        context.signal,
      );
      return editAnswer(answer);
    }),
    renameFile: guarded(async (request, context) => {
      const answer = await engine.editing.renameFile(
        workspaceRef(request.workspace),
        request.file,
        request.newFile,
        request.apply,
        context.signal,
      );
      return editAnswer(answer);
    }),
    applyWorkspaceEdit: guarded(async (request) => {
      const answer = await engine.editing.applyEdit(workspaceRef(request.workspace), workspaceEditFrom(request.edit));
      return editAnswer(answer);
    }),
    callHierarchy: guarded(async (request, context) => {
      const answer = await engine.hierarchies.callHierarchy(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        direction(request.direction, "incoming", "outgoing"),
        request.depth,
        context.signal,
      );
      return hierarchyAnswer(answer);
    }),
    typeHierarchy: guarded(async (request, context) => {
      const answer = await engine.hierarchies.typeHierarchy(
        workspaceRef(request.workspace),
        positionTarget(request.at),
        direction(request.direction, "subtypes", "supertypes"),
        request.depth,
        context.signal,
      );
      return hierarchyAnswer(answer);
    }),
  };
}
