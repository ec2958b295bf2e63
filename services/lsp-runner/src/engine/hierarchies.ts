// Call hierarchy (incoming or outgoing calls, depth 1–3) and type hierarchy (supertypes or
// subtypes), as trees rooted at the symbol at a position.

import { fileURLToPath } from "node:url";
import type { CallHierarchyItem, Range as LspRange, TypeHierarchyItem } from "vscode-languageserver-protocol";
import {
  CallHierarchyIncomingCallsRequest,
  CallHierarchyOutgoingCallsRequest,
  CallHierarchyPrepareRequest,
  type TextDocumentPositionParams,
  TypeHierarchyPrepareRequest,
  TypeHierarchySubtypesRequest,
  TypeHierarchySupertypesRequest,
} from "vscode-languageserver-protocol";
import { invalidArgument } from "../errors.js";
import { fromLspRange, type Position } from "../lsp/session/positionEncoding.js";
import { isMethodNotFound } from "../lsp/session/serverErrors.js";
import { askOtherProjects } from "./acrossProjects.js";
import type { HierarchyAnswer, HierarchyNode, PositionTarget, Range } from "./answers.js";
import { type DocumentContext, type EngineContext, type ProjectLoad, requireCapability } from "./engineContext.js";
import { FileLines } from "./fileLines.js";
import type { CallHierarchyQuery, TypeHierarchyQuery } from "./queries.js";

/** Nodes in one answer at most (default 200): a popular function's callers stop there. */
const MAX_NODES = 200;
const MAX_DEPTH = 3;

type Item = CallHierarchyItem | TypeHierarchyItem;

interface Child {
  item: Item;
  /** Call sites and the item whose file they lie in (call hierarchy only). */
  callSites?: { ranges: LspRange[]; in: Item };
}

/** One request's walk: converts nodes, counts what it left out. */
export class Walk {
  readonly lines: FileLines;
  nodes = 0;
  /** Items outside the workspace that may not be shown (counted as withheld). */
  omitted = 0;
  /** Items in libraries outside the workspace (the standard library's stubs): left out, said so. */
  libraries = 0;
  truncated = false;
  /** The cap was reached among the root's own children: less depth would not help. */
  truncatedFirstLevel = false;

  constructor(
    readonly engine: EngineContext,
    readonly context: DocumentContext,
    readonly children: (item: Item) => Promise<Child[]>,
  ) {
    this.lines = new FileLines(context.session);
  }

  async node(item: Item): Promise<HierarchyNode | undefined> {
    const { paths, session } = this.context;
    const location = await this.engine.convertLocation(paths, this.lines, session, item.uri, item.selectionRange);
    if (!location) {
      this.omitted++;
      return undefined;
    }
    if (location.external) {
      this.libraries++;
      return undefined;
    }
    this.nodes++;
    return {
      name: item.name,
      kind: item.kind,
      detail: item.detail ?? "",
      location,
      callSites: [],
      callSitesFile: "",
      children: [],
    };
  }

  /** Fills node.children down to `depth` more levels; items already on the path are not expanded again. */
  async expand(node: HierarchyNode, item: Item, depth: number, path: ReadonlySet<string>): Promise<void> {
    if (depth === 0) return;
    const key = itemKey(item);
    if (path.has(key)) return;
    const onPath = new Set(path).add(key);
    for (const child of await this.children(item)) {
      if (this.nodes >= MAX_NODES) {
        // Among the root's own children, with no deeper level cut before: the first level alone is too many.
        if (path.size === 0 && !this.truncated) this.truncatedFirstLevel = true;
        this.truncated = true;
        return;
      }
      const converted = await this.node(child.item);
      if (!converted) continue;
      if (child.callSites) {
        const sites = await this.callSites(child.callSites.ranges, child.callSites.in);
        if (sites) {
          converted.callSites = sites.ranges;
          converted.callSitesFile = sites.file;
        }
      }
      node.children.push(converted);
      await this.expand(converted, child.item, depth - 1, onPath);
    }
  }

  private async callSites(ranges: LspRange[], item: Item): Promise<{ file: string; ranges: Range[] } | undefined> {
    const { paths, session } = this.context;
    const first = await this.engine.convertLocation(paths, this.lines, session, item.uri, item.selectionRange, {
      external: false,
    });
    if (!first) return undefined;
    const lines = await this.lines.get(fileURLToPath(item.uri));
    // pyright lists a call twice when it reaches it twice (a method call through self): once here.
    const distinct = new Map(ranges.map((range) => [JSON.stringify(range), range]));
    return {
      file: first.file,
      ranges: [...distinct.values()].map((range) => fromLspRange(lines, range, session.encoding)),
    };
  }
}

export class HierarchyQueries {
  constructor(private readonly engine: EngineContext) {}

  async callHierarchy({ ref, at, direction, depth, signal }: CallHierarchyQuery): Promise<HierarchyAnswer> {
    const levels = checkDepth(depth);
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(
      context.session,
      "callHierarchyProvider",
      `call hierarchy (${CallHierarchyPrepareRequest.method})`,
    );
    const children = async (item: Item): Promise<Child[]> => {
      if (direction === "incoming") {
        const calls = await this.engine.query(
          context.session,
          CallHierarchyIncomingCallsRequest.type,
          { item },
          signal,
        );
        // Incoming call sites lie in the caller.
        return (calls ?? []).map((call) => ({
          item: call.from,
          callSites: { ranges: call.fromRanges, in: call.from },
        }));
      }
      const calls = await this.engine.query(context.session, CallHierarchyOutgoingCallsRequest.type, { item }, signal);
      // Outgoing call sites lie in the item that makes the calls.
      return (calls ?? []).map((call) => ({ item: call.to, callSites: { ranges: call.fromRanges, in: item } }));
    };
    // tsserver finds the callers in the project of the item's file: the other projects' callers are
    // asked with the item placed at a use of the symbol in each (tsserver resolves it there, in
    // that project, to the same declaration).
    const widen =
      direction === "incoming"
        ? async (resolved: Position, root: Item): Promise<Widened> => {
            const others = await askOtherProjects(
              this.engine,
              ref,
              context,
              resolved,
              "callers",
              (there, use) => children({ ...root, uri: there.document.uri, selectionRange: { start: use, end: use } }),
              signal,
            );
            return { children: others.found, projects: belowFirstLevel(others.projects, levels) };
          }
        : undefined;
    const prepare = (params: TextDocumentPositionParams) =>
      this.engine.query(context.session, CallHierarchyPrepareRequest.type, params, signal);
    return this.walk(context, at, prepare, children, levels, { widen });
  }

  async typeHierarchy({ ref, at, direction, depth, signal }: TypeHierarchyQuery): Promise<HierarchyAnswer> {
    const levels = checkDepth(depth);
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(
      context.session,
      "typeHierarchyProvider",
      `type hierarchy (${TypeHierarchyPrepareRequest.method})`,
    );
    const children = async (item: Item): Promise<Child[]> => {
      const items = await this.engine.query(
        context.session,
        direction === "supertypes" ? TypeHierarchySupertypesRequest.type : TypeHierarchySubtypesRequest.type,
        { item },
        signal,
      );
      return (items ?? []).map((child) => ({ item: child }));
    };
    const projects = direction === "subtypes" ? await this.engine.ownProjectOnly(context, "subtypes") : undefined;
    const prepare = (params: TextDocumentPositionParams) =>
      this.engine.query(context.session, TypeHierarchyPrepareRequest.type, params, signal);
    try {
      return await this.walk(context, at, prepare, children, levels, { projects });
    } catch (error) {
      if (!isMethodNotFound(error)) throw error;
    }
    // An older clangd (14) answers only its own textDocument/typeHierarchy, the levels resolved inline.
    const legacy = (params: TextDocumentPositionParams) =>
      this.engine.query<LegacyItem | null>(
        context.session,
        LEGACY_TYPE_HIERARCHY,
        { ...params, resolve: levels, direction: direction === "supertypes" ? 1 : 0 },
        signal,
      );
    const inline = async (item: Item): Promise<Child[]> =>
      ((direction === "supertypes" ? (item as LegacyItem).parents : (item as LegacyItem).children) ?? []).map(
        (child) => ({ item: child }),
      );
    return this.walk(
      context,
      at,
      async (params) => [await legacy(params)].flatMap((item) => (item ? [item] : [])),
      inline,
      levels,
      {},
    );
  }

  private async walk(
    context: DocumentContext,
    at: PositionTarget,
    prepare: (params: TextDocumentPositionParams) => Promise<Item[] | null>,
    children: (item: Item) => Promise<Child[]>,
    depth: number,
    across: { projects?: ProjectLoad; widen?: (resolved: Position, root: Item) => Promise<Widened> },
  ): Promise<HierarchyAnswer> {
    const resolved = this.engine.resolvePosition(context, at);
    const prepared = await prepare(this.engine.positionParams(context, resolved));
    const first = prepared?.[0];
    let { projects } = across;
    let rootChildren = children;
    if (first && across.widen) {
      const widened = await across.widen(resolved, first);
      projects = widened.projects;
      rootChildren = withOthers(children, itemKey(first), widened.children);
    }
    const walk = new Walk(this.engine, context, rootChildren);
    const root = first ? await walk.node(first) : undefined;
    if (root && first) await walk.expand(root, first, depth, new Set());
    const answer = this.engine.withStatus<HierarchyAnswer>(
      context,
      { root },
      { empty: !root, resolved: at.symbol ? resolved : undefined, omitted: walk.omitted, projects },
    );
    if (walk.libraries > 0) {
      const left = `${walk.libraries} item${walk.libraries === 1 ? "" : "s"} in libraries outside the workspace left out (hierarchies show the workspace's own code)`;
      answer.status.note = [answer.status.note, left].filter(Boolean).join("; ");
    }
    if (walk.truncated) {
      answer.status.partial = true;
      answer.status.note = [truncationNote(walk.truncatedFirstLevel), answer.status.note].filter(Boolean).join("; ");
    }
    if (!root) {
      answer.status.note = [
        answer.status.note,
        `no symbol for a hierarchy at ${context.file.path}:${resolved.line}:${resolved.column}`,
      ]
        .filter(Boolean)
        .join("; ");
    }
    return answer;
  }
}

/** Why a hierarchy stopped at MAX_NODES, and what to ask instead. */
export function truncationNote(firstLevel: boolean): string {
  return firstLevel
    ? `stopped at ${MAX_NODES} nodes: the symbol alone has more than that at the first level, so less depth does not help; find_references lists every use, paged`
    : `stopped at ${MAX_NODES} nodes; ask for less depth`;
}

/** The root's children from the other projects, and what the answer must admit about them. */
interface Widened {
  children: Child[];
  projects?: ProjectLoad;
}

/** `children`, with `others` added (each item once) where the item is the root. */
function withOthers(children: (item: Item) => Promise<Child[]>, rootKey: string, others: Child[]) {
  if (others.length === 0) return children;
  return async (item: Item): Promise<Child[]> => {
    const own = await children(item);
    if (itemKey(item) !== rootKey) return own;
    const seen = new Set(own.map((child) => itemKey(child.item)));
    const added = others.filter((child) => {
      const key = itemKey(child.item);
      return !seen.has(key) && Boolean(seen.add(key));
    });
    return [...own, ...added];
  };
}

/**
 * What a multi-project answer admits beyond the first level: a caller's own callers come from its
 * file's project only (a fan-out per node would ask every project again for each).
 */
function belowFirstLevel(projects: ProjectLoad | undefined, levels: number): ProjectLoad | undefined {
  if (!projects || levels <= 1) return projects;
  return {
    ...projects,
    notes: [
      ...projects.notes,
      "callers below the first level are asked from their own file's project only: ask from a caller to see all of its callers",
    ],
    incomplete: true,
  };
}

/** clangd's type hierarchy before the standard one (clangd 14, Debian bookworm's): one request, `resolve` levels inline. */
const LEGACY_TYPE_HIERARCHY = "textDocument/typeHierarchy";

interface LegacyItem extends TypeHierarchyItem {
  children?: LegacyItem[];
  parents?: LegacyItem[];
}

function checkDepth(depth: number): number {
  if (depth === 0) return 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) {
    throw invalidArgument(`depth ${depth} is out of range; give 1 to ${MAX_DEPTH}`);
  }
  return depth;
}

function itemKey(item: Item): string {
  const { line, character } = item.selectionRange.start;
  return `${item.uri}#${line}:${character}#${item.name}`;
}
