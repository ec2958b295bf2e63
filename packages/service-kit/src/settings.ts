// Reading flags and LSPMESH_* environment variables the same way in every entry point: a flag
// wins over its variable, blank means unset, and a bad value throws a SettingsError whose message
// names the setting and the fix (entry points print it with exit code 2).
import { type ParseArgsConfig, parseArgs } from "node:util";

const SETTINGS_ERROR = Symbol.for("lspmesh.settingsError");

/** A wrong flag or setting: reported in one line (plus usage), exit code 2, never a stack trace. */
export class SettingsError extends Error {
  override name = "SettingsError";
  readonly [SETTINGS_ERROR] = true;
}

/**
 * A SettingsError (or subclass) from any copy of this module: the CLI loads each command as a
 * bundle of its own, whose SettingsError is not the entry's, so instanceof cannot tell.
 */
export function isSettingsError(error: unknown): error is SettingsError {
  return typeof error === "object" && error !== null && SETTINGS_ERROR in error;
}

export type Environment = Record<string, string | undefined>;

/** node:util parseArgs (strict unless told otherwise), with its errors turned into SettingsError. */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new SettingsError(flagProblem(error as Error & { code?: string }));
  }
}

/** node:util parseArgs' message in one short clause ("unknown option '--x'", not a lecture on "--"). */
function flagProblem(error: Error & { code?: string }): string {
  const option = /'(-[^']*)'/.exec(error.message)?.[1];
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `unknown option '${option}'`;
  if (error.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return error.message.replace(/\.\s.*$/s, "");
  return error.message;
}

/** A trimmed value, or undefined when missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}

/** The flag's value, else the environment variable's; blank counts as unset. */
export function setting(flag: string | undefined, env: Environment, name: string): string | undefined {
  return nonEmpty(flag) ?? nonEmpty(env[name]);
}

/** A whole number in [min, max], or `fallback` when unset. `name` is how the user sets it. */
export function integerSetting<F extends number | undefined>(
  raw: string | undefined,
  name: string,
  fallback: F,
  min: number,
  max: number,
): number | F {
  const text = nonEmpty(raw);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < min || value > max) {
    throw new SettingsError(`invalid ${name} '${text}': give a whole number from ${min} to ${max}`);
  }
  return value;
}

/** A TCP port (0 picks a free one). */
export function portSetting(raw: string | undefined, name: string, fallback: number): number {
  return integerSetting(raw, name, fallback, 0, 65_535);
}

/** Comma-separated items, trimmed, blanks dropped; undefined when none. */
export function listSetting(raw: string | undefined): string[] | undefined {
  const items = (raw ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length > 0 ? items : undefined;
}
