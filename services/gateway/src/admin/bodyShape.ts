// The fields each admin request body accepts, so an unknown one is refused rather than dropped: a
// misspelt "limit" would otherwise silently leave a tenant without limits. Only structure is
// checked here; values are checked by the change planning (controlPlaneChanges.ts), as for the CLI.

/** An object with these fields (null: a value not looked into), or a list's items / a map's values. */
export type BodyShape =
  | {
      readonly kind: "object";
      /** What the object is, for messages ("a tenant"). */
      readonly name: string;
      readonly fields: Readonly<Record<string, BodyShape | null>>;
      /** A plain string may stand for the object (a workspace given as its id). */
      readonly orString?: boolean;
    }
  | { readonly kind: "each"; readonly of: BodyShape };

export const objectShape = (name: string, fields: Record<string, BodyShape | null>, orString = false): BodyShape => ({
  kind: "object",
  name,
  fields,
  orString,
});

export const eachShape = (of: BodyShape): BodyShape => ({ kind: "each", of });

/** The first field of `value` that `shape` does not allow, as a message naming the fix; undefined when none. */
export function shapeProblem(value: unknown, shape: BodyShape, path = ""): string | undefined {
  if (shape.kind === "each") {
    // Not a list or map: the change planning says what it should be.
    if (!value || typeof value !== "object") return undefined;
    for (const [key, item] of Object.entries(value)) {
      const problem = shapeProblem(item, shape.of, join(path, key));
      if (problem) return problem;
    }
    return undefined;
  }
  if (value === undefined || (shape.orString && typeof value === "string")) return undefined;
  if (!value || typeof value !== "object" || Array.isArray(value))
    return `${path ? `'${path}'` : "the body"} must be a JSON object (${shape.name})`;
  const accepted = Object.keys(shape.fields);
  for (const [key, field] of Object.entries(value)) {
    if (!Object.hasOwn(shape.fields, key))
      return `unknown field '${join(path, key)}': ${shape.name} takes ${accepted.length ? accepted.join(", ") : "no fields"}`;
    const inner = shape.fields[key];
    const problem = inner ? shapeProblem(field, inner, join(path, key)) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
