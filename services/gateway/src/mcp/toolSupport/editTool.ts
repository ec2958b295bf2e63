// The tools answering with an edit (rename_symbol, rename_file, format_document, the symbol edits,
// apply_workspace_edit) share their body: one call about one file (or one edit of several), a
// preview unless `apply` is true, the diagnostics delta when applied, the answer's text and the audit.
import type { CallOptions } from "@lspmesh/grpc";
import type { EditAnswer } from "@lspmesh/proto";
import type { z } from "zod";
import type { RunnerClient } from "../../routing/runnerRouter.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type GatewayTool, writingAnnotations } from "../defineTool.js";
import { type DeltaArguments, deltaRequest } from "./diagnosticsDelta.js";
import { editAnswer, editAnswerOutput, touchedFiles } from "./edits.js";

/** The arguments every edit tool has (apply_workspace_edit has no `apply`: it always writes). */
interface EditArguments extends DeltaArguments {
  workspace?: string | undefined;
  apply?: boolean | undefined;
}

/** What every edit request carries: the workspace, and DeltaOptions when the call applies with diagnostics. */
export interface EditRequestBase {
  workspace: WorkspaceTarget;
  delta?: { enabled: true; waitMs: number };
}

/** The edit one call of an edit tool asks for, from the tool's checked arguments. */
export interface EditRequest {
  /**
   * Where the call goes: `file` to the runner of its language (NO_LANGUAGE_SERVER when none reads
   * it); `files`, an edit known in advance, to the runner of the first file a server reads.
   */
  route: { file: string } | { files: readonly string[] };
  /** The runner's RPC, asked to preview the edit or (apply) to write it; spread `base` into its request. */
  ask(runner: RunnerClient, base: EditRequestBase, options: CallOptions): Promise<EditAnswer>;
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
  /** Always a write whatever the arguments (apply_workspace_edit); default: only with apply: true. */
  alwaysWrites?: boolean;
  /** Checks the arguments (before the workspace is looked up) and says what to ask for. */
  request(args: z.output<Input>): EditRequest;
}

/**
 * A tool answering with an edit that is only previewed unless `apply` is true; then it is a write
 * (lsp:write, never retried on another runner), audited with the files it touched, and answers
 * what it changed in the diagnostics unless `diagnostics: false`.
 */
export function editTool<Input extends z.ZodObject & z.ZodType<EditArguments>>(spec: EditToolSpec<Input>): GatewayTool {
  const writes = (args: EditArguments) => spec.alwaysWrites === true || args.apply === true;
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: editAnswerOutput,
    annotations: writingAnnotations(spec.idempotent),
    writes,
    async run(args, call) {
      const request = spec.request(args);
      const workspace = await call.workspace(args.workspace);
      const write = writes(args);
      const { delta, extraMs } = deltaRequest(args, write);
      const base: EditRequestBase = delta ? { workspace, delta } : { workspace };
      const ask = (runner: RunnerClient, options: CallOptions) => request.ask(runner, base, options);
      const options = extraMs === undefined ? { write } : { write, extraMs };
      let answer: EditAnswer;
      if ("files" in request.route) {
        // Known before the call: the audit line names the files even when the edit is refused.
        call.audit({ workspace: workspace.workspace, files: request.route.files.join(",") });
        answer = await call.sendForEdit(workspace, request.route.files, ask, options);
      } else {
        answer = await call.sendForFile(workspace, request.route.file, ask, options);
      }
      const { what, nothing } = request.wording(answer);
      const result = editAnswer(answer, what, nothing);
      call.audit(
        "files" in request.route
          ? { applied: answer.applied }
          : {
              workspace: workspace.workspace,
              applied: answer.applied,
              files: touchedFiles(result.structured.edit).join(","),
            },
      );
      return result;
    },
  });
}
