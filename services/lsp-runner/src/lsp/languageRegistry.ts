// Which language server serves which files. Commands come from configuration only, never from a
// request: the built-in defaults (builtinLanguages.ts) merged with the operator's languages file
// (languageConfig.ts).
import { extname } from "node:path";
import { defaultLanguages } from "./builtinLanguages.js";
import { findExecutable } from "./commandLookup.js";

export interface LanguageServerConfig {
  /** Stable id used in session keys and answers, e.g. "typescript". */
  readonly id: string;
  /** File extension (with dot, lower case) → LSP languageId sent in didOpen. */
  readonly extensions: Readonly<Record<string, string>>;
  /** A bare name looked up on PATH, or an absolute path. */
  readonly command: string;
  readonly args: readonly string[];
  readonly initializationOptions?: unknown;
  /** Served to `workspace/configuration` by section name (dotted sections are looked up by path). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Added to the child's safelisted environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-request timeout in ms (default 30 000). */
  readonly requestTimeoutMs?: number;
  /** Time allowed for `initialize` in ms (default 60 000). */
  readonly startTimeoutMs?: number;
  /** Quiet time in ms after the last pushed diagnostics before they count as settled (default 300). */
  readonly diagnosticsSettleMs?: number;
  /** How to install the server, shown when its command cannot be started. */
  readonly install?: string;
}

/** A language as configured: built in or from the languages file, enabled or not. */
export interface LanguageDefinition extends LanguageServerConfig {
  /** Disabled languages are known (and can be enabled by the languages file) but serve nothing. */
  readonly enabled: boolean;
}

export class LanguageRegistry {
  private readonly byExtension = new Map<string, LanguageServerConfig>();

  /** Enabled languages only; languageConfig.ts has already refused two claiming one extension. */
  constructor(readonly languages: readonly LanguageServerConfig[] = defaultLanguages()) {
    for (const language of languages) {
      for (const extension of Object.keys(language.extensions)) this.byExtension.set(extension.toLowerCase(), language);
    }
  }

  /** The language serving a file, by extension; undefined when none is configured. */
  forFile(path: string): { language: LanguageServerConfig; languageId: string } | undefined {
    const extension = extname(path).toLowerCase();
    const language = this.byExtension.get(extension);
    if (!language) return undefined;
    return { language, languageId: language.extensions[extension]! };
  }

  get(id: string): LanguageServerConfig | undefined {
    return this.languages.find((language) => language.id === id);
  }

  extensions(): string[] {
    return [...this.byExtension.keys()];
  }

  /**
   * Languages whose command is found (absolute path or on PATH) and executable: what this runner
   * can serve. A rustup proxy without its component is found yet fails to start (SERVER_FAILED).
   */
  installed(): LanguageServerConfig[] {
    return this.languages.filter(
      (language) => findExecutable(language.command, language.env?.PATH ?? process.env.PATH) !== undefined,
    );
  }
}
