import { SettingsError } from "@lspmesh/service-kit";

/** A mistake in the command line: reported in one line with exit code 2 (the kit's SettingsError family). */
export class UsageError extends SettingsError {
  override name = "UsageError";
}

/** A bad file the command was pointed at (e.g. --languages): its message names the fix, so no --help hint. */
export class ConfigFileError extends SettingsError {
  override name = "ConfigFileError";
}

export function parsePort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid port '${text}': use 0–65535`);
  return port;
}
