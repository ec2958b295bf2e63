/** A mistake in the command line: reported in one line with exit code 2. */
export class UsageError extends Error {}

export function parsePort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid port '${text}': use 0–65535`);
  return port;
}
