// Request builders, error capture and short forms of answers, shared by the tests that call a
// runner through gRPC.
import type { ServiceError } from "@lspmesh/grpc";

/** A position: line and column (code points), both 1-based. */
export const at = (file: string, line: number, column: number) => ({
  file,
  target: { case: "position" as const, value: { line, column } },
});

/** A symbol by name, near a line (0: anywhere), its n-th occurrence on that line. */
export const symbol = (file: string, name: string, lineHint = 0, occurrence = 0) => ({
  file,
  target: { case: "symbol" as const, value: { name, lineHint, occurrence } },
});

/** The gRPC error a call fails with, with its lspmesh error code (the test fails when it succeeds). */
export async function failure(call: Promise<unknown>): Promise<ServiceError & { lspmeshCode: string }> {
  const error = (await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: ServiceError) => e,
  )) as ServiceError;
  return Object.assign(error, { lspmeshCode: String(error.metadata?.get("lspmesh-error-code")[0] ?? "") });
}

/** "file:line:column" of each location's start, sorted. */
export function places(
  locations: ReadonlyArray<{ file: string; range?: { start?: { line: number; column: number } } }>,
) {
  return locations.map((l) => `${l.file}:${l.range?.start?.line}:${l.range?.start?.column}`).sort();
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
