// Why a configured language server could not start, as an error that names the fix. A command
// that cannot be spawned (not installed, not executable) is NO_LANGUAGE_SERVER: retrying will not
// help, installing or configuring will. A server that exits during start is SERVER_FAILED.
import { basename } from "node:path";
import { RunnerError } from "../../errors.js";
import type { LanguageServerConfig } from "../languages/languageServerConfig.js";
import { childEnvironment } from "./childEnvironment.js";
import { commandProblem, findExecutable } from "./commandLookup.js";
import { proxiedToolProblem } from "./toolchainProxy.js";

const CONFIGURE =
  'or set its "command" in the languages file (LSPMESH_LANGUAGES_FILE, or lspmesh serve --languages FILE; see docs/languages.md)';

/**
 * Refuses before spawning when the command is not there or not executable, looked up on the PATH
 * the server would get: the same error whether the server is spawned directly or through a shell.
 * A toolchain proxy (rustup's) whose toolchain lacks the tool is not installed either. `root` is
 * the folder the server would run in.
 */
export function assertServerInstalled(language: LanguageServerConfig, root?: string): void {
  const path = language.env?.PATH ?? process.env.PATH;
  const problem = commandProblem(language.command, path);
  if (problem) throw serverNotInstalledError(language, { code: problem });
  const proxied = proxyProblem(language, findExecutable(language.command, path), root);
  if (proxied) throw serverNotInstalledError(language, { code: "PROXY", message: proxied });
}

/**
 * The executable that would serve the language (absolute path), or undefined when the command is
 * missing, not executable, or a toolchain proxy without the tool: what "installed" means.
 */
export function installedExecutable(language: LanguageServerConfig, root?: string): string | undefined {
  const executable = findExecutable(language.command, language.env?.PATH ?? process.env.PATH);
  return executable && !proxyProblem(language, executable, root) ? executable : undefined;
}

function proxyProblem(
  language: LanguageServerConfig,
  executable: string | undefined,
  root?: string,
): string | undefined {
  return executable && proxiedToolProblem(executable, { cwd: root, env: childEnvironment(language.env) });
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
      : error.code === "PROXY"
        ? `command '${command}' is rustup's proxy, and rustup says: ${error.message}`
        : `command '${command}' could not be started (${error.code ?? error.message})`;
  const extensions = Object.keys(language.extensions).join(", ");
  return new RunnerError(
    "NO_LANGUAGE_SERVER",
    `the ${language.id} language server is not installed on this runner: ${problem}. To serve ${extensions || "its"} files, ${language.install ?? `install ${command}`}, ${CONFIGURE}`,
  );
}
