// find_references group_by "symbol": each reference under the innermost symbol of its file that
// encloses it (the function, method or class it is used in), from the file's outline; references
// outside every symbol under "(top level)", those of files without a known outline apart.
import { z } from "zod";
import { enclosingSymbol } from "../../symbols/outline.js";
import { locationText } from "../text.js";
import type { Outline } from "./outlines.js";
import { type LocationOutput, locationOutput } from "./shared.js";

export const TOP_LEVEL = "(top level)";
export const NOT_GROUPED = "(not grouped)";

export const referenceGroupOutput = z.object({
  container: z
    .string()
    .describe(`The enclosing symbol as a name path, e.g. Greeter.greet; "${TOP_LEVEL}" or "${NOT_GROUPED}".`),
  kind: z.string().describe('Its kind, e.g. method; "file" for the top level, "unknown" when not grouped.'),
  file: z.string(),
  line: z.number().int().describe("1-based line of the enclosing symbol's name (1 for the top level and not grouped)."),
  note: z.string().optional().describe("Why the references were not grouped (their file's outline is not known)."),
  references: z.array(locationOutput),
});

export type ReferenceGroup = z.output<typeof referenceGroupOutput>;

/** Groups in the order of their first reference; references keep their order within a group. */
export function groupReferences(
  locations: readonly LocationOutput[],
  outlines: ReadonlyMap<string, Outline>,
): ReferenceGroup[] {
  const groups = new Map<string, ReferenceGroup>();
  for (const location of locations) {
    const group = groupOf(location, outlines.get(location.file));
    const key = `${group.file}\u0000${group.container}\u0000${group.line}`;
    const existing = groups.get(key);
    if (existing) existing.references.push(location);
    else groups.set(key, { ...group, references: [location] });
  }
  return [...groups.values()];
}

function groupOf(location: LocationOutput, outline: Outline | undefined): Omit<ReferenceGroup, "references"> {
  const { file } = location;
  if (!outline || "unknown" in outline) {
    const note = outline?.unknown ?? "an external file: not outlined";
    return { container: NOT_GROUPED, kind: "unknown", file, line: 1, note };
  }
  const enclosing = enclosingSymbol(outline.symbols, location);
  if (!enclosing) return { container: TOP_LEVEL, kind: "file", file, line: 1 };
  const name = enclosing.symbol.selectionRange?.start ?? enclosing.symbol.range?.start;
  return { container: enclosing.path, kind: enclosing.kind, file, line: name?.line ?? 1 };
}

/** "in Greeter.greet (src/a.ts:12):" and the group's locations below it, indented. */
export function groupLines(groups: readonly ReferenceGroup[]): string[] {
  return groups.flatMap((group) => {
    const heading =
      group.container === TOP_LEVEL
        ? `${TOP_LEVEL} in ${group.file}:`
        : group.container === NOT_GROUPED
          ? `${NOT_GROUPED} in ${group.file} (${group.note}):`
          : `in ${group.container} (${group.file}:${group.line}):`;
    const references = group.references.map((location) =>
      locationText(location)
        .split("\n")
        .map((line) => `  ${line}`)
        .join("\n"),
    );
    return [heading, ...references];
  });
}
