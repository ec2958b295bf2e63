// workspace_status: per language, the language server's state, progress, version and last error.
// Without a workspace it lists the caller's workspaces (and, when there is exactly one, its status).
import type { WorkspaceStatusAnswer } from "@lspmesh/proto";
import { SERVER_STATES } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, lines } from "../text.js";
import { toGatewayError } from "../toolErrors.js";
import { collectParts, stateName, workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument.describe("Workspace id; omit to list the workspaces you may use."),
});

const languageStatusOutput = z.object({
  language: z.string(),
  state: z.enum(SERVER_STATES),
  server: z.string().describe("Language server name and version."),
  progress: z.string().optional().describe("Work-done progress text, e.g. indexing 120/900 files."),
  last_error: z.string().optional(),
  restarts: z.number().int(),
  open_documents: z.number().int(),
});

type LanguageStatusOutput = z.output<typeof languageStatusOutput>;

const output = z.object({
  workspaces: z.array(z.string()).describe("Every workspace this caller may use."),
  workspace: z.string().optional().describe("The workspace the languages belong to."),
  languages: z.array(languageStatusOutput).describe("One entry per language server started for the workspace."),
  partial: z.boolean().describe("True when some runner did not answer (see note)."),
  note: z.string().optional(),
});

export function languagesFrom(answers: readonly WorkspaceStatusAnswer[]): LanguageStatusOutput[] {
  const byLanguage = new Map<string, LanguageStatusOutput>();
  for (const answer of answers) {
    for (const language of answer.languages) {
      const out: LanguageStatusOutput = {
        language: language.language,
        state: stateName(language.state),
        server: language.server,
        restarts: language.restarts,
        open_documents: language.openDocuments,
      };
      if (language.progress) out.progress = language.progress;
      if (language.lastError) out.last_error = language.lastError;
      // The same language on two runners (after a failover): keep the one further along.
      const known = byLanguage.get(out.language);
      if (!known || SERVER_STATES.indexOf(out.state) > SERVER_STATES.indexOf(known.state))
        byLanguage.set(out.language, out);
    }
  }
  return [...byLanguage.values()].sort((a, b) => a.language.localeCompare(b.language));
}

function languageLine(status: LanguageStatusOutput): string {
  const details = [
    status.server,
    status.progress,
    status.open_documents ? counted(status.open_documents, "open document") : "",
    status.restarts ? counted(status.restarts, "restart") : "",
    status.last_error ? `last error: ${status.last_error}` : "",
  ].filter((part) => part);
  return `${status.language}: ${status.state}${details.length > 0 ? ` (${details.join("; ")})` : ""}`;
}

export function workspaceStatusAnswer(
  visible: readonly string[],
  workspace: string | undefined,
  languages: LanguageStatusOutput[],
  missing: string[],
): ToolAnswer<z.output<typeof output>> {
  const structured: z.output<typeof output> = { workspaces: [...visible], languages, partial: missing.length > 0 };
  if (workspace) structured.workspace = workspace;
  if (missing.length > 0) structured.note = missing.join("; ");
  const list =
    visible.length === 0
      ? "You have no workspaces; ask the operator to add one for your tenant."
      : `Your workspaces (${visible.length}): ${visible.join(", ")}`;
  if (!workspace) return { text: lines(list, "Give workspace to see its language servers."), structured };
  const body =
    languages.length === 0
      ? [`No language server has started for workspace '${workspace}' yet; the first query on a file starts one.`]
      : [`Language servers of workspace '${workspace}':`, ...languages.map(languageLine)];
  const note = missing.length > 0 ? `Partial: ${missing.join("; ")}` : undefined;
  return {
    text: lines(...body, note, visible.length > 1 ? "" : undefined, visible.length > 1 ? list : undefined),
    structured,
  };
}

export const workspaceStatusTool = defineTool({
  name: "workspace_status",
  title: "Workspace status",
  description:
    "Health of the language servers behind a workspace: per language its state (starting, indexing, ready, degraded, failed), " +
    "indexing progress, server version, open documents, restarts and last error. Without workspace it lists the workspaces you may use. " +
    "Use it when answers come back partial or a call timed out.",
  input,
  output,
  async run(args, call) {
    const visible = (await call.visibleWorkspaces()).map((target) => target.workspace);
    if (args.workspace === undefined && visible.length !== 1) return workspaceStatusAnswer(visible, undefined, [], []);
    const workspace = await call.workspace(args.workspace);
    const parts = await call.sendToWorkspace(
      workspace,
      (runner, options) => runner.workspaceStatus({ workspace }, options),
      { progress: false },
    );
    try {
      const { answers, missing } = collectParts(parts);
      return workspaceStatusAnswer(visible, workspace.workspace, languagesFrom(answers), missing);
    } catch (error) {
      // Asked for the list (workspace omitted): the list stands even when its one runner is down.
      const failure = toGatewayError(error);
      if (args.workspace !== undefined || !failure) throw error;
      return workspaceStatusAnswer(visible, workspace.workspace, [], [`${failure.code}: ${failure.message}`]);
    }
  },
});
