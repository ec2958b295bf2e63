// tsserver answers implementations, incoming calls and subtypes from the asked file's own project
// only (references and renames it gathers from every loaded project). A monorepo's other projects
// are asked from a use of the symbol in each: the references name a file of each project that uses
// it (a file no other project includes, so that tsserver answers from that project), and what is
// asked there is that project's. A project that never names the symbol has none of it
// (implementations name what they implement, callers and subtypes name the symbol); one that names
// it only in files it shares with other projects cannot be asked on its own, and the answer says so.
import {
  ImplementationRequest,
  type Location as LspLocation,
  type Position as LspPosition,
  ReferencesRequest,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { Position } from "../lsp/session/positionEncoding.js";
import type { WorkspaceRef } from "./answers.js";
import type { DocumentContext, EngineContext, ProjectLoad } from "./engineContext.js";
import { normaliseLocations } from "./lspLocations.js";

/** What one project answers, asked in `there` (a file only it includes) at a use of the symbol. */
export type ProjectQuestion<T> = (there: DocumentContext, at: LspPosition) => Promise<T[]>;

export interface OtherProjects<T> {
  /** What the other projects answered, in project order (the asked file's own project not included). */
  found: T[];
  /** What the answer must admit (projects not loaded or not reachable); undefined for a one-project workspace. */
  projects?: ProjectLoad;
}

/**
 * Asks `question` in every project of the workspace but the asked file's own, at a use of the
 * symbol at `position`. `what` names the results in the note ("implementations").
 */
export async function askOtherProjects<T>(
  engine: EngineContext,
  ref: WorkspaceRef,
  context: DocumentContext,
  position: Position,
  what: string,
  question: ProjectQuestion<T>,
  signal?: AbortSignal,
): Promise<OtherProjects<T>> {
  const groups = await engine.projectGroups(context);
  if (groups.length <= 1) {
    // One project, but perhaps one its server's include leaves files out of (pyright's).
    const gap = await engine.includeGap(context, engine.nameAt(context, position));
    return gap ? { found: [], projects: gap } : { found: [] };
  }
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
    const path = context.paths.pathOfUri(location.uri);
    return path ? [{ path, location }] : [];
  });
  const found: T[] = [];
  const unreached: string[] = [];
  for (const group of groups) {
    if (group.unique.has(asked)) continue; // answered by the first request
    // The last use: a file's first is usually its import, where tsserver finds no callers.
    const use = uses.findLast(({ path }) => group.unique.has(path));
    if (!use) {
      if (group.shared.has(asked) || uses.some(({ path }) => group.shared.has(path))) unreached.push(group.name);
      continue;
    }
    try {
      const there = await engine.openDocument(ref, use.path, context.paths);
      found.push(...(await question(there, use.location.range.start)));
    } catch (error) {
      if (signal?.aborted || (error instanceof RunnerError && error.code === "TIMEOUT")) throw error;
      unreached.push(group.name);
    }
  }
  // A file only shared by projects is answered from one of them (tsserver's choice, not known
  // here): one fewer was missed, and the names are the candidates it is among.
  const candidates = [...unreached];
  const sharedOnly = !groups.some((group) => group.unique.has(asked));
  const answered = sharedOnly && groups.find((group) => group.shared.has(asked) && unreached.includes(group.name));
  if (answered) unreached.splice(unreached.indexOf(answered.name), 1);
  const notes = [...load.notes];
  if (unreached.length > 0) {
    const names = `${answered ? "among " : ""}${candidates.slice(0, 3).join(", ")}${candidates.length > 3 ? ", …" : ""}`;
    notes.push(
      `${unreached.length} project(s) name the symbol only in files they share with other projects (${names}), so ${context.session.serverName} could not be asked from them: their ${what} may be missing; ask from a file only that project includes`,
    );
  }
  return { found, projects: { notes, incomplete: Boolean(load.incomplete) || unreached.length > 0 } };
}

/** Implementations from every project: `found` (the asked file's project's) and the others', each once. */
export async function implementationsAcrossProjects(
  engine: EngineContext,
  ref: WorkspaceRef,
  context: DocumentContext,
  position: Position,
  found: readonly LspLocation[],
  signal?: AbortSignal,
): Promise<{ locations: LspLocation[]; projects?: ProjectLoad }> {
  const others = await askOtherProjects(
    engine,
    ref,
    context,
    position,
    "implementations",
    async (there, at) =>
      normaliseLocations(
        await engine.query(
          there.session,
          ImplementationRequest.type,
          { textDocument: { uri: there.document.uri }, position: at },
          signal,
        ),
      ),
    signal,
  );
  const merged = new Map([...found, ...others.found].map((location) => [keyOf(location), location]));
  return { locations: [...merged.values()], ...(others.projects ? { projects: others.projects } : {}) };
}

function keyOf(location: LspLocation): string {
  const { start, end } = location.range;
  return `${location.uri}:${start.line}:${start.character}:${end.line}:${end.character}`;
}
