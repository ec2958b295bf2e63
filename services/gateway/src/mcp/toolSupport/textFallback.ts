// find_definition and find_references for a file no language server reads here: the name's
// whole-word text matches (the runner's search_text, ripgrep), clearly labelled as text, not
// semantic results. Declarations are the matches the runner ranks 0 (a declaration in source).
import type { SearchTextAnswer, TextMatch } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import type { ToolCall } from "../toolCall.js";
import { toGatewayError } from "../toolErrors.js";
import type { PositionContext } from "./positionTool.js";
import { type AnswerStatusOutput, type LocationOutput, locationFrom, type PositionAt } from "./shared.js";

/** The runner's rank of a match that looks like a declaration (runner.proto TextMatch.rank). */
export const DECLARATION_RANK = 0;

/** The `source` output field of the tools that fall back to text: what `text_search` results are. */
export function answerSourceOutput(textResults: string) {
  return z
    .enum(["language_server", "text_search"])
    .optional()
    .describe(
      `language_server (semantic results); text_search: no language server reads the file here, so these are ${textResults} (partial).`,
    );
}

/** A text search answering instead of a language server. */
export interface TextSearched {
  answer: SearchTextAnswer;
  name: string;
  language: FileLanguage;
}

/**
 * The name's whole-word matches when `error` says no language server reads the file and the name
 * is known (symbol given, or the identifier at line:column read); undefined keeps the error.
 */
export async function textSearchInstead(
  error: unknown,
  at: PositionAt,
  context: PositionContext,
  page: { limit: number; offset: number },
): Promise<TextSearched | undefined> {
  const original = noLanguageServer(error);
  if (!original) return undefined;
  const { call, workspace } = context;
  const name = await nameAt(call, workspace, at);
  if (!name) return undefined;
  let answer: SearchTextAnswer;
  try {
    answer = await searchWord(call, workspace, name, page);
  } catch (failure) {
    const coded = toGatewayError(failure);
    if (!coded) throw failure;
    // The first error says what is missing; the second why there are no text matches either.
    throw new GatewayError(
      original.code,
      `${original.message}; a text search for ${name} instead failed too (${coded.code}: ${coded.message})`,
    );
  }
  return { answer, name, language: await languageOfFile(call, workspace, at.file) };
}

/** The error that makes a text search the answer: no language server reads the file here. */
export function noLanguageServer(error: unknown): GatewayError | undefined {
  const coded = toGatewayError(error);
  return coded?.code === "NO_LANGUAGE_SERVER" ? coded : undefined;
}

/** `\bNAME\b` for ripgrep, the name's characters escaped; no `\b` beside a character that is not a word character. */
export function wholeWordPattern(name: string): string {
  const escaped = name.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  const starts = /^[\p{L}\p{N}_]/u.test(name) ? "\\b" : "";
  const ends = /[\p{L}\p{N}_]$/u.test(name) ? "\\b" : "";
  return `${starts}${escaped}${ends}`;
}

/** The identifier at a 1-based code-point column of a line (letters, digits, _ and $), or undefined. */
export function identifierAt(line: string, column: number): string | undefined {
  const points = Array.from(line.replace(/\r?\n$/, ""));
  const isWord = (point: string | undefined) => point !== undefined && /^[\p{L}\p{N}_$]$/u.test(point);
  let at = column - 1;
  // At the end of a word (the column just after it) the word before is meant.
  if (!isWord(points[at]) && isWord(points[at - 1])) at--;
  if (!isWord(points[at])) return undefined;
  let start = at;
  while (isWord(points[start - 1])) start--;
  let end = at + 1;
  while (isWord(points[end])) end++;
  const word = points.slice(start, end).join("");
  return /^\p{N}/u.test(word) ? undefined : word;
}

/** The name to search for: the symbol given, or the identifier at line:column (the line read from the runner). */
export async function nameAt(call: ToolCall, workspace: WorkspaceTarget, at: PositionAt): Promise<string | undefined> {
  if (at.target.case === "symbol") return at.target.value.name;
  const { line, column } = at.target.value;
  try {
    const answer = await call.sendForText(workspace, [at.file], (runner, options) =>
      runner.readFile({ workspace, file: at.file, startLine: line, endLine: line, maxBytes: 0 }, options),
    );
    return identifierAt(answer.text, column);
  } catch (error) {
    if (toGatewayError(error)) return undefined; // cannot read it: the caller keeps the first error
    throw error;
  }
}

/** Whole-word, case-sensitive matches of `name`, from the workspace's first-language runner. */
export function searchWord(
  call: ToolCall,
  workspace: WorkspaceTarget,
  name: string,
  page: { limit: number; offset: number },
): Promise<SearchTextAnswer> {
  return call.sendForText(workspace, [], (runner, options) =>
    runner.searchText(
      {
        workspace,
        query: wholeWordPattern(name),
        regex: true,
        caseSensitive: true,
        limit: page.limit,
        offset: page.offset,
      },
      options,
    ),
  );
}

/** What the answer is labelled with: partial, ripgrep, and a note saying these are text matches. */
export function textSearchStatus(language: FileLanguage, name: string, answer: SearchTextAnswer): AnswerStatusOutput {
  const notes = [
    `no language server for ${language.label} here: text matches of ${name} (ripgrep), not semantic results`,
    answer.note,
  ].filter((note) => note !== "");
  return {
    state: "ready",
    partial: true,
    note: notes.join("; "),
    language: language.id,
    server: "ripgrep (text search)",
  };
}

/** A file's language: its id when known ("" otherwise), and what the note calls it. */
export interface FileLanguage {
  id: string;
  label: string;
}

/** The file's language as the symbol index knows it (text entries carry it too), else named by its extension. */
export async function languageOfFile(call: ToolCall, workspace: WorkspaceTarget, file: string): Promise<FileLanguage> {
  const indexed = (await call.symbolIndex())?.workspaces.get(workspace.workspace)?.files.get(file);
  if (indexed) return { id: indexed.entry.language, label: indexed.entry.language };
  const extension = /\.[^./]+$/.exec(file)?.[0];
  return { id: "", label: extension ? `${extension} files` : "this file" };
}

export function textMatchLocation(match: TextMatch): LocationOutput {
  return locationFrom({ file: match.file, range: match.range, snippet: match.lineText.trim() });
}
