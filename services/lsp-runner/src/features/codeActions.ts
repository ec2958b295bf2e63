// Code actions: quick fixes and refactorings over a range, one of them applied when asked by title
// (with a delta: the files of the action's edit compared before and after it is applied).
import type { CodeActionsAnswer } from "../engine/answers.js";
import { changedFilesOf } from "../engine/changedFiles.js";
import type { DiagnosticsDelta } from "../engine/editCheck.js";
import type { CodeActionsQuery } from "../engine/queries.js";
import type { QueryEngine } from "../engine/queryEngine.js";
import { isEmptyEdit } from "../engine/workspaceEdits.js";
import { answerStatus, codeAction, diagnosticsDelta, optionalRange, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const codeActionsFeature = defineFeature({
  name: "code actions",
  capabilities: {
    textDocument: {
      codeAction: {
        codeActionLiteralSupport: {
          codeActionKind: { valueSet: ["", "quickfix", "refactor", "refactor.extract", "refactor.rewrite", "source"] },
        },
        resolveSupport: { properties: ["edit"] },
        // Actions offered but not applicable here come with the server's reason (disabled_reason),
        // instead of being left out (typescript-language-server drops them otherwise).
        disabledSupport: true,
      },
    },
  },
  cachedMethods: [],
  rpc: (engine) => ({
    codeActions: rpcHandler(async (request, context) => {
      const query: CodeActionsQuery = {
        ref: workspaceRef(request.workspace),
        file: request.file,
        range: optionalRange(request.range),
        kinds: request.kinds,
        applyTitle: request.applyTitle,
        signal: context.signal,
      };
      const { answer, delta } =
        request.applyTitle && request.delta?.enabled
          ? await withDelta(engine, query, request.delta.waitMs)
          : { answer: await engine.editing.codeActions(query) };
      return {
        status: answerStatus(answer.status),
        actions: answer.actions.map(codeAction),
        applied: answer.applied,
        ...(delta ? { delta: diagnosticsDelta(delta) } : {}),
      };
    }),
  }),
});

/**
 * The action applied with the delta of its edit's files. Its edit is known from the list; applying
 * asks for the actions again (the engine checks the title, a disabled action, a command-only one).
 */
async function withDelta(
  engine: QueryEngine,
  query: CodeActionsQuery,
  waitMs: number,
): Promise<{ answer: CodeActionsAnswer; delta?: DiagnosticsDelta }> {
  const listed = await engine.editing.codeActions({ ...query, applyTitle: "" });
  const chosen = listed.actions.find((action) => action.title === query.applyTitle);
  // Not offered, or nothing to write: the engine answers (or refuses) as without a delta.
  if (!chosen || isEmptyEdit(chosen.edit)) return { answer: await engine.editing.codeActions(query) };
  const { files, renamed } = changedFilesOf(chosen.edit);
  const { result, delta } = await engine.checks.aroundApply(
    query.ref,
    files,
    waitMs,
    () => engine.editing.codeActions(query),
    query.signal,
    renamed,
  );
  return { answer: result, delta };
}
