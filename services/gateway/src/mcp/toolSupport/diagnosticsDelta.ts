// What an edit does to the diagnostics (check_edit, and every write tool after applying): the
// `diagnostics`/`wait_ms` arguments, the runner's DeltaOptions, the delta's output schema, and its
// text — new and fixed diagnostics listed, unchanged ones counted (as `lspmesh check` does).
import type { DiagnosticsDelta } from "@lspmesh/proto";
import { z } from "zod";
import { counted } from "../text.js";
import { diagnosticFrom, diagnosticLine, diagnosticShape } from "./diagnosticOutput.js";

/** Default and largest wait for the diagnostics after an applied edit, in ms (runner default 10 000). */
export const DEFAULT_DELTA_WAIT_MS = 10_000;
/** Largest wait for diagnostics any tool accepts, in ms (as the diagnostics tool). */
export const MAX_DELTA_WAIT_MS = 60_000;
/** Diagnostics listed per state (new, fixed) in the text; structuredContent has all of them. */
const LISTED_PER_STATE = 50;
export const DELTA_STATES = ["new", "fixed", "unchanged"] as const;
type DeltaState = (typeof DELTA_STATES)[number];

/** A `wait_ms` argument, in ms from 0 (answer with what is known at once) to `max`. */
export function waitArgument(fallback: number, description: string, max = MAX_DELTA_WAIT_MS) {
  return z
    .number({ error: "wait_ms must be a number" })
    .int({ error: "wait_ms must be a whole number of milliseconds" })
    .min(0, { error: "wait_ms must be 0 or more" })
    .max(max, { error: `wait_ms must be at most ${max}` })
    .default(fallback)
    .describe(`${description} (0-${max}, default ${fallback}).`);
}

/** Spread into the input of every tool that writes an edit. */
export const deltaArguments = {
  diagnostics: z
    .boolean({ error: "diagnostics must be true or false" })
    .default(true)
    .describe(
      "When the edit is applied, answer what it changed in the diagnostics of the edited files and the files importing them: new errors listed, fixed ones too, unchanged ones counted (default true; false answers sooner).",
    ),
  wait_ms: waitArgument(
    DEFAULT_DELTA_WAIT_MS,
    "With diagnostics: milliseconds to wait for the language servers' diagnostics after the edit",
  ),
};

export interface DeltaArguments {
  diagnostics: boolean;
  wait_ms: number;
}

/** The wire's wait: 0 means "runner default" there, so "at once" is sent as 1 ms. */
export function wireWaitMs(waitMs: number): number {
  return Math.max(1, waitMs);
}

/**
 * What an edit request asks for the delta: DeltaOptions only when the call writes and the caller
 * wants diagnostics; the runner may then wait up to wait_ms, so the deadline grows by that much.
 */
export function deltaRequest(
  args: DeltaArguments,
  writes: boolean,
): { delta?: { enabled: true; waitMs: number }; extraMs?: number } {
  if (!writes || !args.diagnostics) return {};
  return { delta: { enabled: true, waitMs: wireWaitMs(args.wait_ms) }, extraMs: args.wait_ms };
}

// ---------------------------------------------------------------------------------------------
// Output

const diagnosticChangeOutput = z.object({
  file: z.string(),
  state: z
    .enum(DELTA_STATES)
    .describe("new: only after the edit; fixed: only before it (its range is the old one); unchanged: both."),
  ...diagnosticShape,
});

type DiagnosticChangeOutput = z.output<typeof diagnosticChangeOutput>;

/** The delta's fields, spread into check_edit's output (which has its own partial and note). */
export const deltaShape = {
  changes: z
    .array(diagnosticChangeOutput)
    .describe("Every diagnostic compared: new first, then fixed, then unchanged; by file and position."),
  counts: z
    .object({ new: z.number().int(), fixed: z.number().int(), unchanged: z.number().int() })
    .describe("How many changes of each state."),
  edited_files: z.array(z.string()).describe("Files the edit changes."),
  importer_files: z.array(z.string()).describe("Other files checked because they import an edited one."),
  importers_not_checked: z
    .number()
    .int()
    .describe("Importing files found beyond the runner's cap (default 30), not checked."),
};

export const diagnosticsDeltaOutput = z.object({
  ...deltaShape,
  partial: z
    .boolean()
    .describe("Some file's diagnostics did not arrive in time, or importers were left out: 0 new proves nothing then."),
  note: z.string().optional().describe("Why the delta is partial, when it is."),
});

export type DiagnosticsDeltaOutput = z.output<typeof diagnosticsDeltaOutput>;

function changeFrom(change: DiagnosticsDelta["changes"][number]): DiagnosticChangeOutput | undefined {
  const state = DELTA_STATES.find((known) => known === change.state);
  if (!state) return undefined;
  return { file: change.file, state, ...diagnosticFrom(change.diagnostic) };
}

/** The runner's delta (any object with its fields). */
export type DeltaFields = Pick<
  DiagnosticsDelta,
  "changes" | "editedFiles" | "importerFiles" | "importersNotChecked" | "partial" | "note"
>;

export function deltaFrom(delta: DeltaFields): DiagnosticsDeltaOutput {
  const changes = delta.changes.flatMap((change) => changeFrom(change) ?? []);
  const count = (state: DeltaState) => changes.filter((change) => change.state === state).length;
  const output: DiagnosticsDeltaOutput = {
    changes,
    counts: { new: count("new"), fixed: count("fixed"), unchanged: count("unchanged") },
    edited_files: [...delta.editedFiles],
    importer_files: [...delta.importerFiles],
    importers_not_checked: delta.importersNotChecked,
    partial: delta.partial,
  };
  if (delta.note) output.note = delta.note;
  return output;
}

// ---------------------------------------------------------------------------------------------
// Text

/** "New (2):" and one line per change of that state, at most LISTED_PER_STATE. */
function listed(changes: readonly DiagnosticChangeOutput[], state: DeltaState, heading: string): string[] {
  const ofState = changes.filter((change) => change.state === state);
  if (ofState.length === 0) return [];
  const shown = ofState.slice(0, LISTED_PER_STATE).map((change) => diagnosticLine(change.file, change));
  const more = ofState.length - shown.length;
  return [
    `${heading} (${ofState.length}):`,
    ...shown,
    ...(more > 0 ? [`… and ${more} more (structuredContent lists them all)`] : []),
  ];
}

/** "2 new, 1 fixed, 3 unchanged in 3 files (1 edited, 2 importers)". */
export function deltaSummary(delta: DiagnosticsDeltaOutput): string {
  const { counts } = delta;
  const checked = delta.edited_files.length + delta.importer_files.length;
  return `${counts.new} new, ${counts.fixed} fixed, ${counts.unchanged} unchanged in ${counted(checked, "file")} (${delta.edited_files.length} edited, ${counted(delta.importer_files.length, "importer")})`;
}

/** Why the delta may be incomplete (the runner's note says why and what to do), or nothing when it is complete. */
export function deltaNotes(delta: DiagnosticsDeltaOutput): string[] {
  const provesNothing = delta.counts.new === 0 ? " 0 new proves nothing." : "";
  if (delta.note) return delta.partial ? [`Incomplete: ${delta.note}.${provesNothing}`] : [`Note: ${delta.note}.`];
  if (delta.importers_not_checked > 0)
    return [
      `Incomplete: ${counted(delta.importers_not_checked, "more importing file")} not checked; run diagnostics on them.${provesNothing}`,
    ];
  if (delta.partial)
    return [`Incomplete: some files' diagnostics did not arrive in time; retry with a larger wait_ms.${provesNothing}`];
  return [];
}

/**
 * The delta as text under `head` ("check_edit:", "Diagnostics after the edit:"): the summary, the
 * new diagnostics, the fixed ones (unchanged ones only counted), then notes.
 */
export function deltaText(delta: DiagnosticsDeltaOutput, head: string): string[] {
  return [
    `${head} ${deltaSummary(delta)}.`,
    ...listed(delta.changes, "new", "New"),
    ...listed(delta.changes, "fixed", "Fixed"),
    ...deltaNotes(delta),
  ];
}
