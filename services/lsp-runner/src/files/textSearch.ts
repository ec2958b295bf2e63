// search_text: literal or regex matches in a workspace's files (ripgrep), ranked so that what an
// agent most likely wants comes first — a declaration in source, then other source, then tests,
// then vendored, generated or minified code — and paged.
import { RunnerError } from "../errors.js";
import { commonArguments, globArguments, RIPGREP_MAX_FILESIZE, runRipgrep, walkFiles } from "./ripgrep.js";

/** Matches collected before the search stops (the total is then a lower bound), default 10 000. */
export const SEARCH_MATCH_CAP = 10_000;
/** Matches answered per page by default, and at most. */
export const SEARCH_DEFAULT_LIMIT = 50;
export const SEARCH_MAX_LIMIT = 1_000;
/** Matched lines longer than this (code points) are cut in answers. */
const LINE_TEXT_MAX = 300;

/** rg's words when its filters left no file to search, and the advice it adds to them. */
const NO_FILES_SEARCHED = /No files were searched/;
const RG_DEBUG_ADVICE = /Running with --debug will show why files are being skipped/;

export interface TextSearchQuery {
  root: string;
  query: string;
  regex: boolean;
  globs: readonly string[];
  caseSensitive: boolean;
  includeIgnored: boolean;
  limit: number;
  offset: number;
  signal?: AbortSignal | undefined;
}

export interface TextMatch {
  file: string;
  /** 1-based lines, 1-based code-point columns, end exclusive. */
  range: { start: { line: number; column: number }; end: { line: number; column: number } };
  lineText: string;
  rank: number;
}

export interface TextSearchAnswer {
  matches: TextMatch[];
  total: number;
  totalAtLeast: boolean;
  filesWithMatches: number;
  partial: boolean;
  note: string;
}

export async function searchText(query: TextSearchQuery): Promise<TextSearchAnswer> {
  // Matches are within one line (no multiline mode): rg would refuse the query in its own words.
  if (query.query.includes("\0"))
    throw new RunnerError("INVALID_ARGUMENT", "the query holds a NUL character; search for text");
  if (query.query.includes("\n"))
    throw new RunnerError(
      "INVALID_ARGUMENT",
      "the query holds a line break; matches are within one line: search for one line of it",
    );
  const found: TextMatch[] = [];
  const files = new Set<string>();
  const args = [
    "--json",
    ...commonArguments(query.includeIgnored),
    "--max-filesize",
    RIPGREP_MAX_FILESIZE,
    query.caseSensitive ? "--case-sensitive" : "--smart-case",
    ...(query.regex ? [] : ["--fixed-strings"]),
    ...globArguments(query.globs),
    "--regexp",
    query.query,
  ];
  const [outcome, oversized] = await Promise.all([
    runRipgrep({
      cwd: query.root,
      args,
      signal: query.signal,
      onLine: (line) => {
        for (const match of matchesOfLine(line)) {
          files.add(match.file);
          found.push(match);
        }
        return found.length < SEARCH_MATCH_CAP;
      },
    }),
    filesOverSizeCap(query),
  ]);
  found.sort(byRank);
  const limit = Math.min(query.limit || SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
  const notes: string[] = [];
  if (outcome.stopped) {
    notes.push(
      `the search stopped at ${SEARCH_MATCH_CAP} matches: the total is a lower bound and only those were ranked; narrow it with path globs or a longer query`,
    );
  }
  if (oversized.length > 0) {
    const listed = oversized.slice(0, 3).join(", ");
    notes.push(
      `${oversized.length} file(s) over ${Number(RIPGREP_MAX_FILESIZE) / 2 ** 20} MiB were not searched: ${listed}${oversized.length > 3 ? ", …" : ""}`,
    );
  }
  // rg says so when its filters (the path globs) left no file to search: complete, nothing there.
  const said = outcome.stderr.split("\n").filter((line) => line.trim() !== "");
  const noFiles = said.some((line) => NO_FILES_SEARCHED.test(line));
  const unreadable = said.filter((line) => !NO_FILES_SEARCHED.test(line) && !RG_DEBUG_ADVICE.test(line));
  if (unreadable.length > 0) notes.push(`some files could not be searched: ${unreadable.slice(0, 3).join("; ")}`);
  return {
    matches: found.slice(query.offset, query.offset + limit),
    total: found.length,
    totalAtLeast: outcome.stopped,
    filesWithMatches: files.size,
    partial: notes.length > 0,
    note: [noFiles ? "no file matches the path globs" : "", ...notes].filter(Boolean).join("; "),
  };
}

/**
 * The files the search passes over for their size (rg skips them silently): those listed without
 * the size cap but not with it, under the same ignore rules and globs. Two `rg --files` runs, which
 * read no contents.
 */
async function filesOverSizeCap(query: TextSearchQuery): Promise<string[]> {
  const list = async (sizeCapped: boolean) => {
    const files = new Set<string>();
    const { root, includeIgnored, globs, signal } = query;
    await walkFiles({ root, includeIgnored, globs, sizeCapped, signal, onFile: (file) => Boolean(files.add(file)) });
    return files;
  };
  const [all, searched] = await Promise.all([list(false), list(true)]);
  return [...all].filter((file) => !searched.has(file)).sort();
}

interface RipgrepMatch {
  type: string;
  data?: {
    path?: { text?: string };
    lines?: { text?: string };
    line_number?: number;
    submatches?: Array<{ start: number; end: number }>;
  };
}

/** The matches of one `rg --json` line (a "match" message; other messages have none). */
export function matchesOfLine(jsonLine: string): TextMatch[] {
  let message: RipgrepMatch;
  try {
    message = JSON.parse(jsonLine) as RipgrepMatch;
  } catch {
    return [];
  }
  const data = message.data;
  // Paths or lines that are not UTF-8 come as base64 `bytes`: not text a caller can use.
  if (message.type !== "match" || !data?.path?.text || data.lines?.text === undefined || !data.line_number) return [];
  const file = data.path.text.replace(/^\.\//, "");
  const text = data.lines.text.replace(/\r?\n$/, "");
  const bytes = Buffer.from(text, "utf8");
  const columnAt = (byteOffset: number) => [...bytes.subarray(0, byteOffset).toString("utf8")].length + 1;
  const line = data.line_number;
  const category = pathCategory(file);
  return (data.submatches ?? []).map(({ start, end }) => {
    const column = columnAt(start);
    const endColumn = columnAt(end);
    // The whole declared name, not its start (`greet` in `function greeting` is a use of a prefix).
    const wholeWord = !/[\p{L}\p{N}_$]/u.test([...text][endColumn - 1] ?? "");
    const declares = category === "source" && wholeWord && declaresAt(text, column);
    return {
      file,
      range: { start: { line, column }, end: { line, column: endColumn } },
      lineText: shortened(text.trim()),
      rank: declares ? 0 : RANK_OF_CATEGORY[category],
    };
  });
}

type PathCategory = "source" | "test" | "vendored" | "prose";

/** Prose (a changelog, the docs) names code in passing: after the tests, with vendored code. */
const RANK_OF_CATEGORY: Record<PathCategory, number> = { source: 1, test: 2, vendored: 3, prose: 3 };

const VENDORED =
  /(^|\/)(vendor|vendored|third_party|third-party|node_modules|dist|build|out|generated|__generated__|\.yarn)\/|\.min\.(js|css|mjs)$|\.(generated|gen|g)\.\w+$|_pb2?\.\w+$|\.pb\.go$|\.map$|(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lock)$/;
const TEST =
  /(^|\/)(tests?|__tests__|__mocks__|spec|specs|testdata|fixtures?)\/|\.(test|spec)\.\w+$|_test\.\w+$|(^|\/)test_[^/]*\.py$|_spec\.rb$|Tests?\.\w+$/;

/** Documentation: Markdown, reStructuredText, AsciiDoc and plain text files. */
const PROSE = /\.(md|mdx|markdown|rst|adoc|asciidoc|txt)$/i;

export function pathCategory(file: string): PathCategory {
  if (VENDORED.test(file)) return "vendored";
  if (PROSE.test(file)) return "prose";
  if (TEST.test(file)) return "test";
  return "source";
}

/** A declaration keyword (and nothing else) right before the match: `function name`, `class Name`, `def name`. */
const DECLARATION_BEFORE =
  /(?:^|[\s(;{])(?:function\*?|class|interface|type|enum|const|let|var|def|func|struct|trait|fn|mod|impl|module|namespace|record|object|union|typedef|macro_rules!)\s+(?:\([^)]*\)\s*)?$/;

export function declaresAt(lineText: string, column: number): boolean {
  const before = [...lineText].slice(0, column - 1).join("");
  return DECLARATION_BEFORE.test(before);
}

function byRank(a: TextMatch, b: TextMatch): number {
  return (
    a.rank - b.rank ||
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.range.start.line - b.range.start.line ||
    a.range.start.column - b.range.start.column
  );
}

function shortened(text: string): string {
  const points = [...text];
  return points.length <= LINE_TEXT_MAX ? text : `${points.slice(0, LINE_TEXT_MAX).join("")}…`;
}
