// call_hierarchy and type_hierarchy: a tree rooted at the symbol at a position, `depth` levels of
// callers/callees or subtypes/supertypes.
import { type HierarchyAnswer, type HierarchyNode, HierarchyRequest_Direction } from "@lspmesh/proto";
import { z } from "zod";
import type { GatewayTool, ToolAnswer } from "../defineTool.js";
import { describeTarget, emptyAnswerText, lines, statusHeader } from "../text.js";
import { positionTool } from "../toolSupport/positionTool.js";
import {
  answerStatusShape,
  declaredSymbolFrom,
  locationOutput,
  type PositionAt,
  positionArguments,
  type RangeOutput,
  rangeFrom,
  rangeShape,
  statusFrom,
} from "../toolSupport/shared.js";

export interface HierarchyNodeOutput {
  name: string;
  kind: string;
  detail?: string | undefined;
  location: z.output<typeof locationOutput>;
  call_sites?: RangeOutput[] | undefined;
  children?: HierarchyNodeOutput[] | undefined;
}

const nodeOutput: z.ZodType<HierarchyNodeOutput> = z.object({
  name: z.string(),
  kind: z.string(),
  detail: z.string().optional(),
  location: locationOutput.describe("Where the symbol is declared."),
  call_sites: z
    .array(z.object(rangeShape))
    .optional()
    .describe("For calls: where in the caller (incoming) or in this symbol (outgoing) the calls are."),
  get children() {
    return z.array(nodeOutput).optional();
  },
});

const output = z.object({
  ...answerStatusShape,
  direction: z.string(),
  root: nodeOutput.optional().describe("The symbol at the position, with children levels below it."),
});

function nodeFrom(node: HierarchyNode): HierarchyNodeOutput {
  const out: HierarchyNodeOutput = declaredSymbolFrom(node);
  if (node.detail) out.detail = node.detail;
  if (node.callSites.length > 0) out.call_sites = node.callSites.map(rangeFrom);
  if (node.children.length > 0) out.children = node.children.map(nodeFrom);
  return out;
}

function treeLines(node: HierarchyNodeOutput, depth: number): string[] {
  const { file, line, column } = node.location;
  const sites = node.call_sites?.length
    ? ` (${node.call_sites.length} call site${node.call_sites.length === 1 ? "" : "s"})`
    : "";
  return [
    `${"  ".repeat(depth)}${node.kind.replaceAll("_", " ")} ${node.name}  ${file}:${line}:${column}${sites}`,
    ...(node.children ?? []).flatMap((child) => treeLines(child, depth + 1)),
  ];
}

export function hierarchyAnswer(
  answer: HierarchyAnswer,
  at: PositionAt,
  direction: string,
  relation: string,
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const root = answer.root ? nodeFrom(answer.root) : undefined;
  const target = describeTarget(at, status);
  const structured: z.output<typeof output> = { ...status, direction };
  if (root) structured.root = root;
  // A complete answer may still say something (items in libraries left out): said last.
  const aside = !status.partial && status.note ? `Note: ${status.note}.` : undefined;
  const text = !root
    ? emptyAnswerText(status, `No symbol with a ${relation} hierarchy at ${target}.`)
    : !root.children?.length
      ? lines(statusHeader(status), `No ${direction} for ${root.name} (${target}).`, aside)
      : lines(
          statusHeader(status),
          `${direction[0]!.toUpperCase()}${direction.slice(1)} of ${root.name}:`,
          ...treeLines(root, 0),
          aside,
        );
  return { text, structured };
}

const depthArgument = z
  .number({ error: "depth must be a number" })
  .int({ error: "depth must be a whole number" })
  .min(1, { error: "depth must be 1, 2 or 3" })
  .max(3, { error: "depth must be 1, 2 or 3" })
  .default(1)
  .describe("Levels to expand, 1-3 (default 1).");

const POINTING =
  "Point at the symbol with file plus line and column (1-based, code points), or with file plus symbol and optionally line.";

/**
 * The `<relation>_hierarchy` tool, calling the runner's `<relation>Hierarchy`: the tree of the
 * symbol at a position in one of two directions (the first is the default).
 */
function hierarchyTool(relation: "call" | "type", directions: readonly [string, string], shows: string): GatewayTool {
  const [incoming, outgoing] = directions;
  const rpc = `${relation}Hierarchy` as const;
  const input = z.object({
    ...positionArguments,
    direction: z
      .enum([incoming, outgoing], { error: `direction must be '${incoming}' or '${outgoing}'` })
      .default(incoming)
      .describe(`'${incoming}' (default) or '${outgoing}'.`),
    depth: depthArgument,
  });
  return positionTool({
    name: `${relation}_hierarchy`,
    title: `${relation[0]!.toUpperCase()}${relation.slice(1)} hierarchy`,
    description: `${shows} ${POINTING}`,
    input,
    output,
    ask: (runner, request, options, args) => {
      const direction =
        args.direction === incoming ? HierarchyRequest_Direction.INCOMING : HierarchyRequest_Direction.OUTGOING;
      return runner[rpc]({ ...request, direction, depth: args.depth }, options);
    },
    answer: (answer, at, args) => hierarchyAnswer(answer, at, args.direction, relation),
  });
}

export const callHierarchyTool = hierarchyTool(
  "call",
  ["incoming", "outgoing"],
  "Who calls the function or method at a position (direction 'incoming', default) or what it calls ('outgoing'), as a tree up to depth 3, each with its location and call sites.",
);

export const typeHierarchyTool = hierarchyTool(
  "type",
  ["subtypes", "supertypes"],
  "The subtypes (direction 'subtypes', default: classes extending or implementing it) or supertypes ('supertypes') of the class or interface at a position, as a tree up to depth 3.",
);
