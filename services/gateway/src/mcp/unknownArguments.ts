// Arguments a tool does not know are refused, not dropped: a misspelt `wait_ms` or an extra
// `text` would otherwise silently change the question (zod objects strip unknown keys).
import type { z } from "zod";

/** One unknown key: where it was found ("" = the top level) and what that object accepts. */
export interface UnknownArgument {
  path: string;
  key: string;
  accepted: readonly string[];
}

/** Depth at which the walk stops (argument objects nest 4 levels at most: edit.files[].edits[]). */
const MAX_DEPTH = 8;

/**
 * The keys of `value` that `schema` does not declare, at every level of nested objects and
 * arrays the schema describes (records and unions are not looked into: their keys are data).
 */
export function unknownArguments(schema: z.ZodType, value: unknown, path = "", depth = 0): UnknownArgument[] {
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return [];
  const inner = unwrapped(schema);
  const def = inner._zod.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
  if (def.type === "array" && def.element && Array.isArray(value)) {
    return value.flatMap((item, index) =>
      unknownArguments(def.element as z.ZodType, item, join(path, String(index)), depth + 1),
    );
  }
  if (def.type !== "object" || !def.shape || Array.isArray(value)) return [];
  const shape = def.shape;
  const accepted = Object.keys(shape);
  const found: UnknownArgument[] = [];
  for (const [key, field] of Object.entries(value)) {
    const fieldSchema = shape[key];
    if (!fieldSchema) found.push({ path, key, accepted });
    else found.push(...unknownArguments(fieldSchema, field, join(path, key), depth + 1));
  }
  return found;
}

/** The refusal's wording: each unknown key named, with what its object accepts. */
export function describeUnknown(unknown: readonly UnknownArgument[]): string {
  const byPath = new Map<string, UnknownArgument[]>();
  for (const entry of unknown) byPath.set(entry.path, [...(byPath.get(entry.path) ?? []), entry]);
  return [...byPath.entries()]
    .map(([path, entries]) => {
      const keys = entries.map((entry) => entry.key).join(", ");
      const where = path === "" ? "unknown argument" : `unknown field in ${path}`;
      const plural = entries.length > 1 ? "s" : "";
      return `${where}${plural}: ${keys} (accepted: ${entries[0]!.accepted.join(", ")})`;
    })
    .join("; ");
}

/** Optional, nullable, default and pipe wrappers hold the schema that describes the value. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < MAX_DEPTH; i++) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (
      (def.type === "optional" ||
        def.type === "nullable" ||
        def.type === "default" ||
        def.type === "prefault" ||
        def.type === "readonly") &&
      def.innerType
    ) {
      current = def.innerType;
    } else if (def.type === "pipe" && def.in) {
      current = def.in;
    } else {
      return current;
    }
  }
  return current;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
