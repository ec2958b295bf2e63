// Indexes one file: picks its source (the TypeScript syntax for TypeScript/JavaScript, the language
// server's documentSymbol for other languages while their server runs for the workspace, text
// matches otherwise), reads it without following symlinks, and skips what is too large or binary.
import { extname, join } from "node:path";
import type { SymbolIndexFileEntry, SymbolIndexSource } from "@lspmesh/events";
import type { DocumentSymbol } from "../engine/answers.js";
import { decodeDocument, splitLines } from "../lsp/documents/textDocument.js";
import type { LanguageRegistry } from "../lsp/languages/languageRegistry.js";
import { readRegularFileBeneath } from "../workspace/metadata.js";
import { serverSymbols } from "./serverSymbols.js";
import { textSymbols } from "./textSymbols.js";
import { TYPESCRIPT_SYNTAX_EXTENSIONS, type TypescriptSyntaxSource } from "./typescriptSymbols.js";

export type SkipReason = "tooLarge" | "binary" | "failed" | "overCap";

export type FileOutcome =
  | { kind: "indexed"; entry: SymbolIndexFileEntry }
  | { kind: "skipped"; reason: SkipReason; detail: string }
  /** Gone, not a regular file (a symlink is never followed), or of no configured language. */
  | { kind: "absent" };

/** A language server's documentSymbol for one file of the workspace (the engine's query). */
export type DocumentSymbolsOf = (file: string, signal: AbortSignal) => Promise<DocumentSymbol[]>;

export interface FileIndexerOptions {
  root: string;
  languages: LanguageRegistry;
  /**
   * Whether the workspace's server for a language is running now: indexing never starts one, so
   * until it runs that language's files are indexed as text matches (and again once it is ready).
   */
  serverRunning: (language: string) => boolean;
  /** Files larger than this are skipped and counted (bytes; the runner's document limit). */
  maxFileBytes: number;
  /** Declarations kept per file, at most; the rest are counted as omitted. */
  maxSymbolsPerFile: number;
  documentSymbols: DocumentSymbolsOf;
  /** Waits until asking a server does not compete with an agent (its session is theirs). */
  serverQuiet: () => Promise<void>;
  typescript: TypescriptSyntaxSource;
  /** Longest a server may take for one file's symbols, ms. */
  serverTimeoutMs: number;
}

export class FileIndexer {
  constructor(private readonly options: FileIndexerOptions) {}

  /** The source a file would be indexed by, or undefined when it is not a file of a configured language. */
  sourceOf(file: string): { language: string; source: SymbolIndexSource } | undefined {
    const match = this.options.languages.forFile(file);
    if (!match) return undefined;
    const language = match.language.id;
    if (TYPESCRIPT_SYNTAX_EXTENSIONS.has(extname(file).toLowerCase())) return { language, source: "typescript-syntax" };
    if (this.options.serverRunning(language)) return { language, source: "lsp-document-symbol" };
    return { language, source: "text" };
  }

  async index(file: string, epoch: number): Promise<FileOutcome> {
    const chosen = this.sourceOf(file);
    if (!chosen) return { kind: "absent" };
    // Never through a symlink, nor a folder swapped for one: what is read lies inside the workspace.
    const read = await readRegularFileBeneath(
      this.options.root,
      join(this.options.root, file),
      this.options.maxFileBytes,
    ).catch(() => undefined);
    if (!read) return { kind: "absent" };
    const { bytes, ...info } = read;
    if (!bytes) return { kind: "skipped", reason: "tooLarge", detail: `${info.size} bytes` };
    const text = decodeDocument(bytes);
    if (text === undefined) return { kind: "skipped", reason: "binary", detail: "binary content" };
    const lines = splitLines(text);
    const cap = this.options.maxSymbolsPerFile;
    let symbols: SymbolIndexFileEntry["symbols"];
    let omitted = 0;
    try {
      if (chosen.source === "typescript-syntax") {
        symbols = this.options.typescript.symbols(file, text, lines);
      } else if (chosen.source === "lsp-document-symbol") {
        await this.options.serverQuiet();
        const found = await this.options.documentSymbols(file, AbortSignal.timeout(this.options.serverTimeoutMs));
        symbols = serverSymbols(chosen.language, found, lines);
      } else {
        ({ symbols, omitted } = textSymbols(lines, cap));
      }
    } catch (error) {
      return { kind: "skipped", reason: "failed", detail: (error as Error).message ?? String(error) };
    }
    if (symbols.length > cap) {
      omitted += symbols.length - cap;
      symbols = symbols.slice(0, cap);
    }
    return {
      kind: "indexed",
      entry: {
        v: 1,
        file,
        language: chosen.language,
        source: chosen.source,
        epoch,
        mtimeMs: Math.trunc(info.mtimeMs),
        size: info.size,
        symbols,
        ...(omitted > 0 ? { omitted } : {}),
      },
    };
  }
}
