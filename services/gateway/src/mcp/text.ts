// Readable text shared by the tools: where a request pointed, locations with snippets, and the
// wording for answers from a server that is not ready (never a bare "no results" then).
import type { ServerStateName } from "@lspmesh/proto";
import type { AnswerStatusOutput, LocationOutput, PositionAt } from "./toolSupport/shared.js";

const STATE_PHRASES: Record<ServerStateName, string> = {
  starting: "is starting",
  indexing: "is indexing",
  ready: "answered only partially",
  degraded: "is degraded",
  failed: "has failed",
};

const RETRY_ADVICE: Record<ServerStateName, string> = {
  starting: "try again shortly",
  indexing: "try again shortly",
  ready: "try again shortly",
  // A degraded server's note names what is wrong (gopls: the workspace it could not load); waiting may not help.
  degraded: "fix what its note names, or try again shortly if it names nothing",
  failed: "try again later",
};

/** The note of results a server found outside the caller's workspaces (runner: "N results outside your workspaces withheld"). */
const WITHHELD = /withheld/;

function serverName(status: AnswerStatusOutput): string {
  return status.language ? `the ${status.language} server` : "the language server";
}

/** The runner's note of a server not ready ("the x server is indexing (…): this answer may be incomplete; try again shortly"). */
const STATE_NOTE =
  /^the \S+ server is (?:starting|indexing)\b[^;]*?: (?:this answer may be incomplete|no results yet)$/;

/** The note after the header, less what the header already says (the server's state, and to try again). */
function noteSuffix(status: AnswerStatusOutput): string {
  const parts = status.note ? status.note.split("; ") : [];
  const kept = parts.filter((part, index) => {
    if (STATE_NOTE.test(part)) return false;
    return !(part === "try again shortly" && index > 0 && STATE_NOTE.test(parts[index - 1]!));
  });
  return kept.length > 0 ? ` (${kept.join("; ")})` : "";
}

/** True when an empty or short answer says nothing about what exists. */
export function isNotReady(status: AnswerStatusOutput): boolean {
  return status.partial || status.state !== "ready";
}

/**
 * First line for a partial non-empty answer; undefined otherwise. A server not ready may still
 * answer completely about one file's own content (its outline on a degraded or indexing server:
 * partial false): results it gave are then not called incomplete, as `partial` says.
 */
export function statusHeader(status: AnswerStatusOutput): string | undefined {
  if (!status.partial) return undefined;
  // A ready server's partial answer has a reason that waiting does not fix (a cap, skipped files).
  if (status.state === "ready" && status.note) return `Partial answer, results may be incomplete: ${status.note}.`;
  return `Partial answer: ${serverName(status)} ${STATE_PHRASES[status.state]}, so results may be incomplete; ${RETRY_ADVICE[status.state]} for more.${noteSuffix(status)}`;
}

/** The text of an answer without results: `noResults` only when the server is ready and complete. */
export function emptyAnswerText(status: AnswerStatusOutput, noResults: string): string {
  // Results the server found lie outside the caller's workspaces: say so, never "none found".
  const notes = status.note ? status.note.split("; ") : [];
  const withheld = notes.filter((note) => WITHHELD.test(note));
  if (withheld.length > 0) {
    const head = `Nothing to show: ${withheld.join("; ")} (outside the workspaces this caller may see).`;
    if (!isNotReady(status)) return head;
    const rest = notes.filter((note) => !WITHHELD.test(note)).join("; ");
    const why =
      status.state === "ready" && rest
        ? rest
        : `${serverName(status)} ${STATE_PHRASES[status.state]}${rest ? ` (${rest})` : ""}`;
    return `${head} Other results may be missing: ${why}.`;
  }
  if (!isNotReady(status)) return noResults;
  if (status.state === "ready" && status.note) return `No results, but the answer may be incomplete: ${status.note}.`;
  return `No results yet: ${serverName(status)} ${STATE_PHRASES[status.state]}; ${RETRY_ADVICE[status.state]}.${noteSuffix(status)}`;
}

/**
 * The text of an answer: its results under the status header, or, when nothing was found, `none`
 * as emptyAnswerText words it.
 */
export function answerText(
  status: AnswerStatusOutput,
  found: boolean,
  none: string,
  ...results: Array<string | undefined>
): string {
  if (!found) return emptyAnswerText(status, none);
  // A complete answer may still say something (results outside the workspace withheld): said last.
  const aside = !status.partial && status.note ? `Note: ${status.note}.` : undefined;
  return lines(statusHeader(status), ...results, aside);
}

/** "src/a.ts:3:5", or "`name` at src/a.ts:3:5" for a symbol target (at the position it resolved to). */
export function describeTarget(at: PositionAt, status: AnswerStatusOutput): string {
  if (at.target.case === "position") return `${at.file}:${at.target.value.line}:${at.target.value.column}`;
  const { name, lineHint, columnHint } = at.target.value;
  const resolved = status.resolved;
  const where = resolved ? `${at.file}:${resolved.line}:${resolved.column}` : at.file;
  if (!columnHint || !resolved) return `\`${name}\` at ${where}`;
  // Both column and symbol were given: say which one decided.
  return resolved.line === lineHint && resolved.column === columnHint
    ? `\`${name}\` at ${where} (the given column)`
    : `\`${name}\` at ${where} (not at the given ${at.file}:${lineHint}:${columnHint}; found near that line)`;
}

/** "src/a.ts:12:5" and, indented below it, the code line. */
export function locationText(location: LocationOutput): string {
  const head = `${location.file}:${location.line}:${location.column}${location.external ? " (external library, read-only)" : ""}`;
  const snippet = location.snippet.trimEnd();
  if (snippet === "") return head;
  return `${head}\n${snippet
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n")}`;
}

/** A page asked past the end of a list: where the list ends (`last`: "them", "the 369 reachable"; `first`: what offset 0 starts from). */
export function pastTheEnd(offset: number, last = "them", first = "the first"): string {
  return `offset ${offset} is past the last of ${last} (offset 0 starts from ${first})`;
}

/** "1 definition", "3 definitions". */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** Joins the parts that are present with newlines ("" stays, as a blank line). */
export function lines(...parts: Array<string | undefined>): string {
  return parts.filter((part): part is string => part !== undefined).join("\n");
}

/** Most characters of any tool's text answer (about 6 000 tokens); structuredContent is not cut. */
export const TEXT_BUDGET = 24_000;

/**
 * The text cut at a line boundary to fit `budget`, with how many lines were left out and where
 * they are (`narrow`: how to see them, for a tool whose arguments cannot narrow it). Tools keep their own answers shorter (limits, paging); this is the backstop.
 */
export function withinBudget(text: string, budget = TEXT_BUDGET, narrow = NARROW_BY_ARGUMENTS): string {
  if (text.length <= budget) return text;
  const room = budget - 300;
  const cut = text.lastIndexOf("\n", room);
  const kept = text.slice(0, cut > 0 ? cut : room);
  const left = text
    .slice(kept.length)
    .split("\n")
    .filter((line) => line !== "").length;
  return `${kept}\n… ${counted(left, "more line")} not shown: a text answer is kept under ${budget} characters. structuredContent has everything; or ${narrow}.`;
}

/** How withinBudget's last line says to see the rest, for tools that page or take a range. */
export const NARROW_BY_ARGUMENTS = "narrow the request (limit and offset, a line range, one file)";
