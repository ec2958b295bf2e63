import { describe, expect, test } from "vitest";
import type { CallHierarchyItem } from "vscode-languageserver-protocol";
import type { DocumentContext, EngineContext } from "./engineContext.js";
import { truncationNote, Walk } from "./hierarchies.js";

function item(name: string): CallHierarchyItem {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  return { name, kind: 12, uri: `file:///ws/${name}.py`, range, selectionRange: range };
}

/** A walk whose items all convert, each item having `fanOut(name)` children. */
function walkWith(fanOut: (name: string) => number): Walk {
  const engine = {
    convertLocation: async (_paths: unknown, _lines: unknown, _session: unknown, uri: string) => ({
      file: uri.slice("file:///ws/".length),
      line: 1,
      column: 1,
      end_line: 1,
      end_column: 2,
      snippet: "",
    }),
  } as unknown as EngineContext;
  const context = { paths: {}, session: {} } as unknown as DocumentContext;
  return new Walk(engine, context, async (parent) =>
    Array.from({ length: fanOut(parent.name) }, (_, i) => ({ item: item(`${parent.name}.${i}`) })),
  );
}

describe("a hierarchy over 200 nodes", () => {
  test("cut among the root's own callers: less depth would not help, and the note says so", async () => {
    const walk = walkWith((name) => (name === "root" ? 250 : 0));
    const root = (await walk.node(item("root")))!;
    await walk.expand(root, item("root"), 1, new Set());
    expect(root.children).toHaveLength(199);
    expect(walk.truncated).toBe(true);
    expect(walk.truncatedFirstLevel).toBe(true);
    expect(truncationNote(walk.truncatedFirstLevel)).toContain("less depth does not help; find_references");
  });

  test("cut deeper down: less depth helps", async () => {
    const walk = walkWith((name) => (name === "root" ? 10 : name.split(".").length === 2 ? 30 : 0));
    const root = (await walk.node(item("root")))!;
    await walk.expand(root, item("root"), 2, new Set());
    expect(root.children.length).toBeLessThan(10);
    expect(walk.truncated).toBe(true);
    expect(walk.truncatedFirstLevel).toBe(false);
    expect(truncationNote(walk.truncatedFirstLevel)).toBe("stopped at 200 nodes; ask for less depth");
  });
});
