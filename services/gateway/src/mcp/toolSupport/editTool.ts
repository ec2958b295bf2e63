// The tools answering with an edit (rename_symbol, rename_file, format_document) share their
// body: one call about one file, a preview unless `apply` is true, the answer's text and the audit.
import type { CallOptions } from "@lspmesh/grpc";
import type { EditAnswer } from "@lspmesh/proto";
import type { z } from "zod";
import type { RunnerClient } from "../../routing/runnerRouter.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type GatewayTool, writingAnnotations } from "../defineTool.js";
import { editAnswer, editAnswerOutput, touchedFiles } from "./edits.js";

/** The arguments every edit tool has. */
interface EditArguments {
  workspace?: string | undefined;
  apply: boolean;
}

/** The edit one call of an edit tool asks for, from the tool's checked arguments. */
export interface EditRequest {
  /** The file the edit is about: the call goes to the runner of its language. */
  file: string;
  /** The runner's RPC, asked to preview the edit or (apply) to write it. */
  ask(runner: RunnerClient, workspace: WorkspaceTarget, options: CallOptions): Promise<EditAnswer>;
  /** How the answer names the edit, and what it says when there is nothing to change. */
  wording(answer: EditAnswer): { what: string; nothing: string };
}

export interface EditToolSpec<Input extends z.ZodObject & z.ZodType<EditArguments>> {
  name: string;
  title: string;
  description: string;
  input: Input;
  /** Applying the edit twice gives the same files (formatting). */
  idempotent: boolean;
  /** Checks the arguments (before the workspace is looked up) and says what to ask for. */
  request(args: z.output<Input>): EditRequest;
}

/**
 * A tool answering with an edit that is only previewed unless `apply` is true; then it is a write
 * (lsp:write, never retried on another runner), audited with the files it touched.
 */
export function editTool<Input extends z.ZodObject & z.ZodType<EditArguments>>(spec: EditToolSpec<Input>): GatewayTool {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: editAnswerOutput,
    annotations: writingAnnotations(spec.idempotent),
    writes: (args) => args.apply,
    async run(args, call) {
      const request = spec.request(args);
      const workspace = await call.workspace(args.workspace);
      const answer = await call.sendForFile(
        workspace,
        request.file,
        (runner, options) => request.ask(runner, workspace, options),
        { write: args.apply },
      );
      const { what, nothing } = request.wording(answer);
      const result = editAnswer(answer, what, nothing);
      call.audit({
        workspace: workspace.workspace,
        applied: answer.applied,
        files: touchedFiles(result.structured.edit).join(","),
      });
      return result;
    },
  });
}
