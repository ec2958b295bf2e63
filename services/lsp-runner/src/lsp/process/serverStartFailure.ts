// Why a configured language server could not start, as an error that names the fix. A command
// that cannot be spawned (not installed, not executable) is NO_LANGUAGE_SERVER: retrying will not
// help, installing or configuring will. A server that exits during start is SERVER_FAILED.
import { basename } from "node:path";
import { RunnerError } from "../../errors.js";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import { commandProblem } from "./commandLookup.js";

const CONFIGURE =
  'or set its "command" in the languages file (LSPMESH_LANGUAGES_FILE, or lspmesh serve --languages FILE; see docs/languages.md)';

/**
 * Refuses before spawning when the command is not there or not executable, looked up on the PATH
 * the server would get: the same error whether the server is spawned directly or through a shell.
 */
export function assertServerInstalled(language: LanguageServerConfig): void {
  const problem = commandProblem(language.command, language.env?.PATH ?? process.env.PATH);
  if (problem) throw serverNotInstalledError(language, { code: problem });
}

/** The command could not be spawned: ENOENT (not installed) or EACCES (not executable). */
export function serverNotInstalledError(
  language: LanguageServerConfig,
  error: { code?: string; message?: string },
): RunnerError {
  const command = basename(language.command);
  const problem =
    error.code === "ENOENT"
      ? `command '${command}' was not found`
      : `command '${command}' could not be started (${error.code ?? error.message})`;
  const extensions = Object.keys(language.extensions).join(", ");
  return new RunnerError(
    "NO_LANGUAGE_SERVER",
    `the ${language.id} language server is not installed on this runner: ${problem}. To serve ${extensions || "its"} files, ${language.install ?? `install ${command}`}, ${CONFIGURE}`,
  );
}
