// Thin gRPC handlers: proto request → engine call → proto answer. Errors cross the boundary
// through grpcErrorFromRunner only.
import type { Runner, ServiceImplementation } from "@lspmesh/proto";
import type { QueryEngine } from "../engine/queryEngine.js";
import { RunnerError } from "../errors.js";
import { grpcErrorFromRunner } from "./errorStatus.js";
import { answerStatus, documentSymbol, positionTarget, serverState, workspaceRef } from "./protoMapping.js";

function unsupported(operation: string): never {
  throw new RunnerError("UNSUPPORTED", `${operation} is not available on this runner version yet`);
}

export function runnerService(engine: QueryEngine): ServiceImplementation<typeof Runner.method> {
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
      );
      return { status: answerStatus(answer.status), symbols: answer.symbols };
    }),
    diagnostics: guarded(async (request, context) => {
      const answer = await engine.diagnostics.diagnostics(
        workspaceRef(request.workspace),
        request.files,
        request.waitMs,
        context.signal,
      );
      return { status: answerStatus(answer.status), files: answer.files, epoch: BigInt(answer.epoch) };
    }),
    workspaceStatus: guarded(async (request) => {
      const languages = await engine.status.workspaceStatus(workspaceRef(request.workspace));
      return { languages: languages.map((l) => ({ ...l, state: serverState(l.state) })) };
    }),
    completions: guarded(async () => unsupported("completions")),
    signatureHelp: guarded(async () => unsupported("signature_help")),
    codeActions: guarded(async () => unsupported("code_actions")),
    formatDocument: guarded(async () => unsupported("format_document")),
    renameSymbol: guarded(async () => unsupported("rename_symbol")),
    renameFile: guarded(async () => unsupported("rename_file")),
    applyWorkspaceEdit: guarded(async () => unsupported("apply_workspace_edit")),
    callHierarchy: guarded(async () => unsupported("call_hierarchy")),
    typeHierarchy: guarded(async () => unsupported("type_hierarchy")),
    inlayHints: guarded(async () => unsupported("inlay_hints")),
  };
}
