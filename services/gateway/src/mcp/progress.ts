// Progress of long runner calls. The runner's Runner service is unary, so while a call runs the
// gateway polls WorkspaceStatus on the same runner and forwards each language server's state and
// work-done progress text ("indexing 120/900 files") as MCP progress notifications. A streaming
// RPC would be tighter; see docs/gateway.md "Progress".
import type { RunnerHandle } from "../routing/runnerRouter.js";
import type { WorkspaceTarget } from "../workspaces.js";
import { stateName } from "./toolSupport/shared.js";

/** Starts polling; returns the stop function (idempotent). The first poll is one interval in. */
export function pollRunnerProgress(
  runner: RunnerHandle,
  target: WorkspaceTarget,
  notify: (message: string) => void,
  intervalMs: number,
): () => void {
  let stopped = false;
  let inFlight = false;
  const timer = setInterval(() => {
    if (stopped || inFlight) return;
    inFlight = true;
    runner.client
      .workspaceStatus({ workspace: target }, { timeoutMs: intervalMs })
      .then((answer) => {
        if (stopped) return;
        const parts = answer.languages.map(
          (language) =>
            `${language.language} ${stateName(language.state)}${language.progress ? `: ${language.progress}` : ""}`,
        );
        notify(
          parts.length > 0
            ? `waiting for the language server (${parts.join("; ")})`
            : "waiting for the language server",
        );
      })
      .catch(() => {
        if (!stopped) notify("waiting for the runner");
      })
      .finally(() => {
        inFlight = false;
      });
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
