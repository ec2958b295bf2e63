// Which language server serves which files. Commands come from configuration only, never from a
// request: the built-in defaults (builtinLanguages.ts) merged with the operator's languages file
// (languageConfig.ts).
import { extname } from "node:path";
import { findExecutable } from "../process/commandLookup.js";
import { installedExecutable } from "../process/serverStartFailure.js";
import { defaultLanguages } from "./builtinLanguages.js";
import type { LanguageServerConfig } from "./languageServerConfig.js";

export type { LanguageDefinition, LanguageServerConfig } from "./languageServerConfig.js";

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
   * Languages whose command is found (absolute path or on PATH), executable, and not a rustup proxy
   * without its component: what this runner can serve.
   */
  installed(): LanguageServerConfig[] {
    return this.languages.filter((language) => installedExecutable(language) !== undefined);
  }

  /** Languages whose command is found, runnable or not (a sandbox binds their installations). */
  found(): LanguageServerConfig[] {
    return this.languages.filter(
      (language) => findExecutable(language.command, language.env?.PATH ?? process.env.PATH) !== undefined,
    );
  }
}
