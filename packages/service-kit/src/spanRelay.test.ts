import { describe, expect, test } from "vitest";
import { parseRelayedSpan, type RelayedSpan } from "./spanRelay.js";

const SPAN: RelayedSpan = {
  name: "textDocument/definition",
  kind: 2,
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  parentSpanId: "b7ad6b7169203331",
  traceFlags: 1,
  start: [1_700_000_000, 5],
  end: [1_700_000_000, 40_000_005],
  attributes: { "rpc.method": "textDocument/definition", "lsp.language": "typescript" },
  status: { code: 0 },
  scope: "lspmesh-lsp",
};

describe("parseRelayedSpan", () => {
  test("a well-formed span comes through as it was sent", () => {
    expect(parseRelayedSpan(JSON.parse(JSON.stringify(SPAN)))).toEqual(SPAN);
    const { parentSpanId: _, ...root } = SPAN;
    expect(parseRelayedSpan(root)).toEqual(root);
  });

  test("malformed or oversized spans from the child are dropped", () => {
    const bad: Array<Partial<Record<keyof RelayedSpan, unknown>>> = [
      { traceId: "0".repeat(32) },
      { spanId: "XYZ" },
      { parentSpanId: "short" },
      { kind: 9 },
      { start: [1, 1_000_000_000] },
      { end: "soon" },
      { name: "x".repeat(201) },
      { attributes: { nested: { no: true } } },
      { attributes: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) },
      { attributes: { long: "x".repeat(1_001) } },
      { status: { code: 7 } },
    ];
    for (const change of bad) expect(parseRelayedSpan({ ...SPAN, ...change }), JSON.stringify(change)).toBeUndefined();
    expect(parseRelayedSpan(null)).toBeUndefined();
    expect(parseRelayedSpan("span")).toBeUndefined();
  });
});
