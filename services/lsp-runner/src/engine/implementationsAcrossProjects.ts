// tsserver gives implementations from the asked file's own project only (references and renames it
// gathers from every loaded project). A monorepo's other projects are searched from a use of the
// symbol in each: the references name a file of each project that uses it (a file no other
// project includes, so that tsserver answers from that project), and the implementations asked
// there are that project's. A project that never names the symbol implements none of it (TypeScript
// implementations name what they implement); one that names it only in files it shares with other
// projects cannot be asked on its own, and the answer says so.
import { fileURLToPath } from "node:url";
import { ImplementationRequest, type Location as LspLocation, ReferencesRequest } from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { Position } from "../lsp/session/positionEncoding.js";
import type { WorkspaceRef } from "./answers.js";
import type { DocumentContext, EngineContext, ProjectLoad } from "./engineContext.js";
import { normaliseLocations } from "./lspLocations.js";

export interface AcrossProjects {
  locations: LspLocation[];
  /** What the answer must admit (projects not loaded or not reachable); undefined for a one-project workspace. */
  projects?: ProjectLoad;
}

export async function implementationsAcrossProjects(
  engine: EngineContext,
  ref: WorkspaceRef,
  context: DocumentContext,
  position: Position,
  found: readonly LspLocation[],
  signal?: AbortSignal,
): Promise<AcrossProjects> {
  const groups = await engine.projectGroups(context);
  if (groups.length <= 1) return { locations: [...found] };
  const asked = context.file.path;
  // Uses in every project: they are only found once every project is loaded.
  const load = await engine.loadProjects(context);
  const references =
    (await engine.query(
      context.session,
      ReferencesRequest.type,
      { ...engine.positionParams(context, position), context: { includeDeclaration: false } },
      signal,
    )) ?? [];
  const uses = references.flatMap((location) => {
    const path = location.uri.startsWith("file:")
      ? context.paths.toWorkspacePath(fileURLToPath(location.uri))
      : undefined;
    return path ? [{ path, location }] : [];
  });
  const merged = new Map(found.map((location) => [keyOf(location), location]));
  let unreached = 0;
  for (const group of groups) {
    if (group.unique.has(asked)) continue; // answered by the first request
    const use = uses.find(({ path }) => group.unique.has(path));
    if (!use) {
      if (group.shared.has(asked) || uses.some(({ path }) => group.shared.has(path))) unreached++;
      continue;
    }
    try {
      for (const location of await implementationsAt(engine, ref, context, use.path, use.location, signal))
        merged.set(keyOf(location), location);
    } catch (error) {
      if (signal?.aborted || (error instanceof RunnerError && error.code === "TIMEOUT")) throw error;
      unreached++;
    }
  }
  // A file only shared by projects is answered from one of them (tsserver's choice), counted above
  // as unreached: that one was reached.
  if (!groups.some((group) => group.unique.has(asked)) && groups.some((group) => group.shared.has(asked)))
    unreached = Math.max(0, unreached - 1);
  const notes = [...load.notes];
  if (unreached > 0)
    notes.push(
      `${unreached} project(s) name the symbol only in files they share with other projects, so ${context.session.serverName} could not be asked from them: their implementations may be missing; ask from a file of that project`,
    );
  return {
    locations: [...merged.values()],
    projects: { notes, incomplete: Boolean(load.incomplete) || unreached > 0 },
  };
}

/** The implementations tsserver gives from `file`'s project, asked at a use of the symbol there. */
async function implementationsAt(
  engine: EngineContext,
  ref: WorkspaceRef,
  context: DocumentContext,
  file: string,
  use: LspLocation,
  signal?: AbortSignal,
): Promise<LspLocation[]> {
  const there = await engine.openDocument(ref, file, context.paths);
  const result = await engine.query(
    there.session,
    ImplementationRequest.type,
    { textDocument: { uri: there.document.uri }, position: use.range.start },
    signal,
  );
  return normaliseLocations(result);
}

function keyOf(location: LspLocation): string {
  const { start, end } = location.range;
  return `${location.uri}:${start.line}:${start.character}:${end.line}:${end.character}`;
}
