// What a complete symbol index still does not know: files it passed over. A file over the runner's
// size limit or past its file cap holds declarations no search sees; a binary file holds none.
import type { SymbolIndexMeta } from "@lspmesh/events";

/** Why the workspace's declarations may be missing from its (complete) index; undefined when nothing was passed over. */
export function unindexedFiles(meta: SymbolIndexMeta): string | undefined {
  const { failed, tooLarge, overCap } = meta.skipped;
  const reasons: string[] = [];
  if (failed > 0) reasons.push(`${failed} of its files could not be indexed (their language server failed on them)`);
  if (tooLarge > 0)
    reasons.push(
      `${tooLarge} of its files are over the runner's file size limit (4 MiB by default) and not indexed: their declarations are not searched`,
    );
  if (overCap > 0)
    reasons.push("it has more files than its index holds (50 000 by default): the rest are not searched");
  return reasons.length > 0 ? reasons.join("; ") : undefined;
}
