// Starts a session's server process: what it writes to stderr is kept for failures (sanitized: it
// reaches the tenant) and logged as written, a framing problem fails the session.
import { LanguageServerProcess } from "../process/languageServerProcess.js";
import { sanitizeServerMessage } from "./serverErrors.js";
import { framingFailure } from "./sessionFailure.js";
import type { SessionHealth } from "./sessionHealth.js";
import { type SessionSettings, serverProcessOptions } from "./sessionOptions.js";

export function launchServer(
  options: SessionSettings & { onLog?: ((line: string) => void) | undefined },
  health: Pick<SessionHealth, "failures" | "fail">,
): LanguageServerProcess {
  return new LanguageServerProcess(
    serverProcessOptions(options, {
      onStderr: (line) => {
        health.failures.noteStderr(sanitizeServerMessage(line, options.root));
        options.onLog?.(line);
      },
      onFramingProblem: (problem) => health.fail(framingFailure(problem), { stop: true }),
    }),
  );
}
