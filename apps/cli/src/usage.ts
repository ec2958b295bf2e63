import { homedir } from "node:os";
import { parse as parsePath, resolve as resolvePath } from "node:path";
import { parseFlags, SettingsError } from "@lspmesh/service-kit";

/** A mistake in the command line: reported in one line with exit code 2 (the kit's SettingsError family). */
export class UsageError extends SettingsError {
  override name = "UsageError";
}

/** A bad file the command was pointed at (e.g. --languages): its message names the fix, so no --help hint. */
export class ConfigFileError extends SettingsError {
  override name = "ConfigFileError";
}

/** node:util parseArgs, its mistakes as UsageError in one short clause ("unknown option '--x'"). */
export const parseCommandFlags: typeof parseFlags = (config) => {
  try {
    return parseFlags(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
};

/** The lines under a usage mistake: the command's usage line and where the rest is. */
export function usageHint(command: string, help: string): string {
  return `${help.split("\n")[0]}\nRun \`lspmesh ${command} --help\` for all options.`;
}

export function parsePort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid port '${text}': use 0–65535`);
  return port;
}

/** An --allow-origin value: a browser origin such as http://localhost:5173, normalized. */
export function parseOrigin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    `${url.origin}/` !== url.href.replace(/\/?$/, "/")
  ) {
    throw new UsageError(`invalid --allow-origin '${text}': give a browser origin such as http://localhost:5173`);
  }
  return url.origin;
}

/**
 * The folder to serve. Without one, the current folder — unless that is the filesystem root or
 * the home folder (where agents often start servers), which are never served by default.
 */
export function folderToServe(given: string | undefined, command: string): { dir: string; implicit: boolean } {
  if (given !== undefined) return { dir: resolvePath(given), implicit: false };
  const dir = process.cwd();
  if (dir === parsePath(dir).root || dir === homedir()) {
    throw new UsageError(
      `no folder given and the current folder is ${dir}: name the project to serve, e.g. lspmesh ${command} /path/to/project`,
    );
  }
  return { dir, implicit: true };
}
