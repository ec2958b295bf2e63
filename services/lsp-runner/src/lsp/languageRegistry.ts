// Which language server serves which files. Commands come from configuration only, never from a
// request. Built-in defaults cover TypeScript/JavaScript; more languages are added by config.
import { createRequire } from "node:module";
import { extname } from "node:path";

export interface LanguageServerConfig {
  /** Stable id used in session keys and answers, e.g. "typescript". */
  readonly id: string;
  /** File extension (with dot, lower case) → LSP languageId sent in didOpen. */
  readonly extensions: Readonly<Record<string, string>>;
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
}

const require = createRequire(import.meta.url);

/** TypeScript/JavaScript through typescript-language-server and the project's own pinned TypeScript. */
export function typescriptLanguage(): LanguageServerConfig {
  return {
    id: "typescript",
    extensions: {
      ".ts": "typescript",
      ".mts": "typescript",
      ".cts": "typescript",
      ".tsx": "typescriptreact",
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    command: process.execPath,
    args: [require.resolve("typescript-language-server/lib/cli.mjs"), "--stdio"],
    initializationOptions: {
      // Never the workspace's node_modules copy: a workspace must not choose the code we run.
      // One tsserver, no syntax server: while the project loads, a syntax server answers definition
      // and references syntactically (the import, not the declaration) before any $/progress
      // announces the loading, so such half answers could not be told from complete ones.
      tsserver: {
        path: require.resolve("typescript/lib/tsserver.js"),
        fallbackPath: undefined,
        useSyntaxServer: "never",
      },
      disableAutomaticTypingAcquisition: true,
      plugins: [],
      preferences: { includeInlayParameterNameHints: "all", includeInlayVariableTypeHints: true },
    },
    settings: {
      formattingOptions: { tabSize: 2, insertSpaces: true },
    },
  };
}

export class LanguageRegistry {
  private readonly byExtension = new Map<string, LanguageServerConfig>();

  constructor(readonly languages: readonly LanguageServerConfig[] = [typescriptLanguage()]) {
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
}
