// A secret mounted as a file (a Kubernetes Secret): read when first needed, re-read when the file
// changes (checked at most once a second), so a rotated secret applies without a restart. While
// the file is briefly missing during a rotation the last value stays.
import { readFileSync, statSync } from "node:fs";

/** How often the file is checked for a new value, at most (ms). */
const RECHECK_MS = 1_000;

export class SecretFileError extends Error {
  override name = "SecretFileError";
}

export class SecretFile {
  private cached: string | undefined;
  private checkedAt = 0;
  private mtimeMs = -1;

  /** Throws SecretFileError when the file cannot be read or its value is shorter than minLength. */
  constructor(
    readonly path: string,
    private readonly options: { what: string; minLength?: number },
  ) {
    this.value();
  }

  /** The current value (surrounding whitespace removed). */
  value(): string {
    const now = Date.now();
    if (this.cached !== undefined && now - this.checkedAt < RECHECK_MS) return this.cached;
    this.checkedAt = now;
    try {
      const mtime = statSync(this.path).mtimeMs;
      if (mtime !== this.mtimeMs || this.cached === undefined) {
        this.cached = checkedSecret(
          readFileSync(this.path, "utf8").trim(),
          `${this.options.what} ${this.path}`,
          this.options.minLength,
        );
        this.mtimeMs = mtime;
      }
    } catch (error) {
      if (this.cached === undefined)
        throw error instanceof SecretFileError
          ? error
          : new SecretFileError(`cannot read ${this.options.what} ${this.path}: ${(error as Error).message}`);
    }
    return this.cached;
  }
}

/** The secret, unless shorter than minLength characters (default 16). */
export function checkedSecret(secret: string, what: string, minLength = 16): string {
  if (secret.length < minLength)
    throw new SecretFileError(`${what} is shorter than ${minLength} characters: use a long random value`);
  return secret;
}
