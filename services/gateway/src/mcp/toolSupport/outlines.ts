// The outlines (document symbols) of a few files, asked in parallel, for answers that need to know
// which symbol holds a position: a reference's container, a declaration's body range.
import type { DocumentSymbol } from "@lspmesh/proto";
import type { WorkspaceTarget } from "../../workspaces.js";
import type { ToolCall } from "../toolCall.js";
import { toGatewayError } from "../toolErrors.js";

/** Files whose outline one answer asks for, at most (one document_symbols call each). */
export const MAX_OUTLINE_FILES = 20;

/** A file's top-level symbols, or why they are not known. */
export type Outline = { symbols: readonly DocumentSymbol[] } | { unknown: string };

/** Outlines of the first MAX_OUTLINE_FILES of `files`; the rest are unknown, saying so. */
export async function fetchOutlines(
  call: ToolCall,
  workspace: WorkspaceTarget,
  files: readonly string[],
): Promise<Map<string, Outline>> {
  const distinct = [...new Set(files)];
  const asked = distinct.slice(0, MAX_OUTLINE_FILES);
  const outlines = new Map<string, Outline>();
  await Promise.all(
    asked.map(async (file) => {
      try {
        const answer = await call.sendForFile(workspace, file, (runner, options) =>
          runner.documentSymbols({ workspace, file }, options),
        );
        outlines.set(file, { symbols: answer.symbols });
      } catch (error) {
        const coded = toGatewayError(error);
        if (!coded) throw error;
        outlines.set(file, { unknown: `its outline could not be read (${coded.code}: ${coded.message})` });
      }
    }),
  );
  for (const file of distinct.slice(MAX_OUTLINE_FILES)) {
    outlines.set(file, {
      unknown: `outlines are read for ${MAX_OUTLINE_FILES} files per answer; page with a smaller limit`,
    });
  }
  return outlines;
}
