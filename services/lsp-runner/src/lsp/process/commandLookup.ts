// Where a configured command would be found, the way spawn finds it: an absolute path as is, a
// bare name in the PATH directories. Relative paths are never looked up: a language server runs
// with the workspace as its working directory, and the workspace must not choose the code we run.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** The executable file the command names, or undefined when there is none. */
export function findExecutable(command: string, path: string | undefined): string | undefined {
  if (isAbsolute(command)) return isExecutableFile(command) ? command : undefined;
  if (command.includes("/")) return undefined;
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Why spawn would fail for the command: ENOENT (no such file) or EACCES (not executable). */
export function commandProblem(command: string, path: string | undefined): "ENOENT" | "EACCES" | undefined {
  if (findExecutable(command, path) !== undefined) return undefined;
  return isAbsolute(command) && existsSync(command) ? "EACCES" : "ENOENT";
}
