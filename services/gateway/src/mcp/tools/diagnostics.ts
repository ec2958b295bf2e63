// diagnostics: errors and warnings for some files or the whole workspace, optionally waiting
// for diagnostics that belong to the files' current content. The answer is shaped in diagnosticsReport.ts.
import { z } from "zod";
import { defineTool } from "../defineTool.js";
import { collectParts, fileArgument, limitArgument, offsetArgument, workspaceArgument } from "../toolSupport/shared.js";
import { diagnosticsOutput, mergedDiagnosticsAnswer, SEVERITIES } from "./diagnosticsReport.js";

/** Default and largest wait for fresh diagnostics, in ms. */
const DEFAULT_WAIT_MS = 3000;
const MAX_WAIT_MS = 60_000;
const MAX_FILES = 500;
/** Diagnostics listed per answer by default, and at most (the rest is paged with offset). */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const input = z.object({
  workspace: workspaceArgument,
  files: z
    .array(fileArgument, { error: "files must be a list of workspace-relative paths" })
    .max(MAX_FILES, { error: `files lists more than ${MAX_FILES} paths; omit it to check the whole workspace` })
    .optional()
    .describe('Workspace-relative paths to check, e.g. ["src/a.ts"]. Omit to check the whole workspace.'),
  wait_ms: z
    .number({ error: "wait_ms must be a number" })
    .int({ error: "wait_ms must be a whole number of milliseconds" })
    .min(0, { error: "wait_ms must be 0 or more" })
    .max(MAX_WAIT_MS, { error: `wait_ms must be at most ${MAX_WAIT_MS}` })
    .default(DEFAULT_WAIT_MS)
    .describe(
      `Milliseconds to wait for diagnostics computed from the files' current content, e.g. right after an edit (0-${MAX_WAIT_MS}, default ${DEFAULT_WAIT_MS}). 0 answers at once with what is known.`,
    ),
  severity: z
    .enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(", ")}` })
    .optional()
    .describe(
      'Lowest severity listed: "error", "warning", "information" or "hint". Default "warning" (errors and warnings) for the whole workspace, "hint" (everything) for named files. Counts cover every severity.',
    ),
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "diagnostics"),
  offset: offsetArgument("Index of the first diagnostic to list (0-based), from next_offset of the previous answer."),
});

export const diagnosticsTool = defineTool({
  name: "diagnostics",
  title: "Diagnostics",
  description:
    "Compiler and linter errors and warnings from the language servers, for the given files or for the whole workspace, " +
    "each as file:line:column (1-based; column in Unicode code points) with severity, code and message, under a summary " +
    "line with the true counts (clean files are counted, not listed). The whole workspace lists errors and warnings by " +
    'default (severity: "hint" for everything); at most limit (default 50) are listed, the rest paged with offset. ' +
    "After editing files, keep wait_ms (default 3000) so the answer reflects the new content; fresh=false marks files " +
    "whose diagnostics are older than their content. partial=true means the answer may be incomplete (a server not " +
    "ready, files left unchecked or skipped), so an empty list proves nothing.",
  input,
  output: diagnosticsOutput,
  async run(args, call) {
    const files = args.files ?? [];
    const view = {
      severity: args.severity ?? (files.length > 0 ? "hint" : "warning"),
      limit: args.limit,
      offset: args.offset,
      requestedFiles: files,
    } as const;
    const workspace = await call.workspace(args.workspace);
    // The runner may spend up to wait_ms waiting, so the deadline grows by that much.
    const waitingDeadline = { extraMs: args.wait_ms };
    // Named files go to the runner of their own language, one call per language; a file no runner
    // serves is reported as missing, like a failed call (when nothing answered, the first failure
    // is the error).
    const parts =
      files.length === 0
        ? await call.sendToWorkspace(
            workspace,
            (runner, options, languages) =>
              runner.diagnostics(
                { workspace, files, waitMs: args.wait_ms, languages: languages.filter(Boolean) },
                options,
              ),
            waitingDeadline,
          )
        : await call.sendForFiles(
            workspace,
            files,
            (runner, options, group) => runner.diagnostics({ workspace, files: group, waitMs: args.wait_ms }, options),
            waitingDeadline,
          );
    const { answers, missing } = collectParts(parts);
    return mergedDiagnosticsAnswer(answers, view, missing);
  },
});
