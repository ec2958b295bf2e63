// `lspmesh runner`: the runner service; flags become LSPMESH_* variables for its composition root.
import { parseArgs } from "node:util";

const HELP = `usage: lspmesh runner [--listen HOST:PORT] [--workspaces-root DIR] [--languages FILE]

Flags override the environment: LSPMESH_LISTEN (default 0.0.0.0:7421),
LSPMESH_WORKSPACES_ROOT (default /workspaces), LSPMESH_LANGUAGES_FILE (JSON overriding or adding
language servers; see docs/languages.md), LSPMESH_MAX_FILE_BYTES (see docs/operations.md).`;

export async function runRunnerCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      listen: { type: "string" },
      "workspaces-root": { type: "string" },
      languages: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.listen) process.env.LSPMESH_LISTEN = values.listen;
  if (values["workspaces-root"]) process.env.LSPMESH_WORKSPACES_ROOT = values["workspaces-root"];
  if (values.languages) process.env.LSPMESH_LANGUAGES_FILE = values.languages;
  await import("@lspmesh/lsp-runner/main");
}
