// The diagnostics delta of a server-computed edit (rename, format) applied on request: the edit is
// computed as a preview, its files' diagnostics taken, the same edit applied through the atomic
// apply path (its content hashes refuse a file changed in between), and the diagnostics taken again.
import type { DeltaOptions } from "@lspmesh/proto";
import type { EditAnswer, WorkspaceRef } from "../engine/answers.js";
import type { QueryEngine } from "../engine/queryEngine.js";
import { editAnswer } from "../grpc/protoMapping.js";

export async function editWithDelta(
  engine: QueryEngine,
  ref: WorkspaceRef,
  request: { apply: boolean; delta?: DeltaOptions | undefined },
  compute: (apply: boolean) => Promise<EditAnswer>,
  signal: AbortSignal,
) {
  if (!request.apply || !request.delta?.enabled) return editAnswer(await compute(request.apply));
  const preview = await compute(false);
  // Nothing to change (a formatted file): answered as without a delta.
  if (preview.edit.files.every((file) => file.edits.length === 0) && preview.edit.operations.length === 0) {
    return editAnswer(await compute(true));
  }
  const files = preview.edit.files.map((file) => file.file);
  const { result, delta } = await engine.checks.aroundApply(
    ref,
    files,
    request.delta.waitMs,
    () => engine.editing.applyEdit({ ref, edit: preview.edit }),
    signal,
  );
  return editAnswer({ ...preview, applied: result.applied }, delta);
}
