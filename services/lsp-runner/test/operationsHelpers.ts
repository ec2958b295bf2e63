// Shared by the operation tests: position specs, error capture, and short forms of answers.
import type { ServiceError } from "@lspmesh/proto";

export const at = (file: string, line: number, column: number) => ({
  file,
  target: { case: "position" as const, value: { line, column } },
});

export const symbol = (file: string, name: string, lineHint = 0, occurrence = 0) => ({
  file,
  target: { case: "symbol" as const, value: { name, lineHint, occurrence } },
});

/** The gRPC error a call fails with (the test fails when it succeeds). */
export async function failure(call: Promise<unknown>): Promise<ServiceError & { lspmeshCode: string }> {
  const error = (await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: ServiceError) => e,
  )) as ServiceError;
  return Object.assign(error, { lspmeshCode: String(error.metadata?.get("lspmesh-error-code")[0] ?? "") });
}

interface RangeLike {
  start?: { line: number; column: number };
  end?: { line: number; column: number };
}

/** "line:column-line:column". */
export function span(range: RangeLike | undefined): string {
  return `${range?.start?.line}:${range?.start?.column}-${range?.end?.line}:${range?.end?.column}`;
}

/** A workspace edit as "file span → text" lines, for exact comparisons. */
export function editLines(
  edit: { files: Array<{ file: string; edits: Array<{ range?: RangeLike; newText: string }> }> } | undefined,
) {
  return (edit?.files ?? []).flatMap((file) => file.edits.map((e) => `${file.file} ${span(e.range)} → ${e.newText}`));
}
