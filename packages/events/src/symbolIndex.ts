// The symbol index on JetStream (docs/events.md, "Symbol index"): one KV bucket per tenant, so a
// reader can only ever open its own tenant's indexes, and NATS permissions can be granted per
// tenant on the bucket's subjects. Keys: `<workspace>.meta` (state, epoch, progress, counts) and
// `<workspace>.f.<fileKey>` (one file's declarations).
import { decodeFileKey, fileKey } from "./subjects.js";

/** Prefix of the per-tenant KV buckets: `lspmesh-symbols-<tenant>`. */
export const SYMBOL_INDEX_BUCKET_PREFIX = "lspmesh-symbols-";

/** `lspmesh-symbols-<tenant>`: the KV bucket holding every index of one tenant. */
export function symbolIndexBucket(tenant: string): string {
  return `${SYMBOL_INDEX_BUCKET_PREFIX}${tenant}`;
}

/** The JetStream stream behind a tenant's bucket (what NATS permissions name): `KV_lspmesh-symbols-<tenant>`. */
export function symbolIndexStream(tenant: string): string {
  return `KV_${symbolIndexBucket(tenant)}`;
}

/** The tenant of a bucket name, or undefined when it is not a symbol index bucket. */
export function tenantOfSymbolIndexBucket(bucket: string): string | undefined {
  return bucket.startsWith(SYMBOL_INDEX_BUCKET_PREFIX) ? bucket.slice(SYMBOL_INDEX_BUCKET_PREFIX.length) : undefined;
}

/** Key of a workspace's index state. */
export function symbolIndexMetaKey(workspace: string): string {
  return `${workspace}.meta`;
}

/** Key of one file's declarations. */
export function symbolIndexFileKey(workspace: string, file: string): string {
  return `${workspace}.f.${fileKey(file)}`;
}

/** Every key of one workspace (a KV watch/keys filter). */
export function symbolIndexWorkspaceFilter(workspace: string): string {
  return `${workspace}.>`;
}

export type SymbolIndexKey = { workspace: string; kind: "meta" } | { workspace: string; kind: "file"; file: string };

/** Parses a key of a tenant's bucket; undefined for keys this version does not know. */
export function parseSymbolIndexKey(key: string): SymbolIndexKey | undefined {
  const [workspace, kind, encoded, ...rest] = key.split(".");
  if (!workspace || rest.length > 0) return undefined;
  if (kind === "meta" && encoded === undefined) return { workspace, kind: "meta" };
  if (kind === "f" && encoded) return { workspace, kind: "file", file: decodeFileKey(encoded) };
  return undefined;
}

/**
 * Where an entry came from: `typescript-syntax` (the TypeScript compiler's navigation tree of the
 * file, the same one tsserver answers documentSymbol from), `lsp-document-symbol` (the language
 * server's textDocument/documentSymbol), `text` (identifiers found at word boundaries in a file of
 * a language with no index source: text matches, not declarations).
 */
export type SymbolIndexSource = "typescript-syntax" | "lsp-document-symbol" | "text";

/** One declaration (or, for source "text", one identifier's first occurrence). */
export interface IndexedSymbol {
  name: string;
  /** Tool-contract kind name: "class", "function", "enum_member", … ("text" for text matches). */
  kind: string;
  /** Enclosing declaration, e.g. the class of a method. */
  container?: string;
  /** 1-based line and code-point column of the name; end exclusive. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /**
   * Exported: TypeScript/JavaScript `export` at the top level of the file (or a local export list),
   * or `export` inside a namespace; other languages by their convention (Python: no leading `_`).
   */
  exported: boolean;
  /** The declaration's source line, trimmed (at most 160 characters). */
  snippet: string;
}

/** An identifier: a letter or `_`, then letters, digits and `_`. */
const IDENTIFIER = String.raw`[\p{L}_][\p{L}\p{N}_]*`;
/** `(*Command).Execute`, `(List[T]).Push`: a method with its receiver, as gopls's documentSymbol names it. */
const RECEIVER_METHOD = new RegExp(String.raw`^\(\*?(${IDENTIFIER})(?:\[[^\]]*\])?\)\.(${IDENTIFIER})$`, "u");
/** `Command.Execute`, `cobra.Command.Use`: a member qualified by its type (and package), as gopls's workspace/symbol names it. */
const QUALIFIED_MEMBER = new RegExp(String.raw`^(?:${IDENTIFIER}\.)*(${IDENTIFIER})\.(${IDENTIFIER})$`, "u");

/**
 * A member that a server names together with its type — gopls: `(*Command).Execute` (document
 * symbols), `Command.Execute` (workspace symbols, methods and fields) — as its own name and that
 * type as its container, so that a search by the member's name finds it. Undefined for other names.
 */
export function memberOfQualifiedName(
  language: string,
  name: string,
  kind: string,
): { name: string; container: string } | undefined {
  const receiver = RECEIVER_METHOD.exec(name);
  if (receiver) return { name: receiver[2]!, container: receiver[1]! };
  if (language !== "go" || (kind !== "method" && kind !== "field")) return undefined;
  const qualified = QUALIFIED_MEMBER.exec(name);
  return qualified ? { name: qualified[2]!, container: qualified[1]! } : undefined;
}

/** The value of `<workspace>.f.<fileKey>`: the declarations of one file. */
export interface SymbolIndexFileEntry {
  v: 1;
  /** Workspace-relative POSIX path. */
  file: string;
  language: string;
  source: SymbolIndexSource;
  /** Index epoch at which this file was indexed (see SymbolIndexMeta.epoch). */
  epoch: number;
  /** The file's mtime (ms) and size (bytes) when indexed: a restarted runner re-reads files that differ. */
  mtimeMs: number;
  size: number;
  symbols: IndexedSymbol[];
  /** Declarations left out because the file has more than the per-file cap. */
  omitted?: number;
}

export type SymbolIndexState = "indexing" | "ready";

/** The value of `<workspace>.meta`: state and freshness of one workspace's index. */
export interface SymbolIndexMeta {
  v: 1;
  tenant: string;
  workspace: string;
  /** Runner keeping this index live (a restarted runner with the same id takes it up again). */
  runner: string;
  /** indexing: the first build (or a catch-up) is under way; ready: every file is indexed. */
  state: SymbolIndexState;
  /**
   * Workspace change epoch the index reflects: ms since the Unix epoch, strictly increasing,
   * advanced for every batch of file changes applied (and for a build or catch-up).
   */
  epoch: number;
  /** Files to index in the current build, and done so far (progress while indexing). */
  total: number;
  done: number;
  /** Files indexed and declarations held. */
  files: number;
  symbols: number;
  /** Files passed over, by reason: too large, binary, the source failing, over the file cap. */
  skipped: { tooLarge: number; binary: number; failed: number; overCap: number };
  /** Sources used, with their file counts. */
  sources: Partial<Record<SymbolIndexSource, number>>;
  /** ms since the Unix epoch: last change of this meta, and when the last build finished. */
  updatedAt: number;
  builtAt?: number;
  /**
   * Folders not watched (the tenant's inotify watch budget spent, or the kernel's): changes below
   * them are found by polling every `everyMs`, so the index may lag that much there.
   */
  polled?: { folders: number; everyMs: number };
}

/** One change of a tenant's indexes, as a reader follows them. */
export type SymbolIndexUpdate =
  | { type: "meta"; meta: SymbolIndexMeta }
  | { type: "file"; workspace: string; entry: SymbolIndexFileEntry }
  | { type: "deleted"; workspace: string; file: string }
  | { type: "workspaceDeleted"; workspace: string };
