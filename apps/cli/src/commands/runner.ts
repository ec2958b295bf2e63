// `lspmesh runner`: the runner service. Its flags and LSPMESH_* variables are the runner's own
// (runnerConfig in @lspmesh/lsp-runner); this command only hands them over.
import { main, RUNNER_USAGE } from "@lspmesh/lsp-runner";

export const HELP = RUNNER_USAGE;

export async function runRunnerCommand(args: string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(RUNNER_USAGE);
    return;
  }
  await main(args, process.env);
}
