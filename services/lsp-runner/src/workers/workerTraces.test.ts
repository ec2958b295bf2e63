import type { RelayedSpan } from "@lspmesh/service-kit";
import { expect, test } from "vitest";
import { WorkerTraces } from "./workerTraces.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const OTHER = "0af7651916cd43dd8448eb211c80319c";

function span(traceId: string, spanId = "00f067aa0ba902b7"): RelayedSpan {
  return {
    name: "textDocument/definition",
    kind: 2,
    traceId,
    spanId,
    parentSpanId: "b7ad6b7169203331",
    traceFlags: 1,
    start: [1_700_000_000, 0],
    end: [1_700_000_000, 1_000],
    attributes: {},
    status: { code: 0 },
    scope: "lspmesh-lsp",
  };
}

test("a worker's spans are exported only while a call of their trace is under way", () => {
  const exported: RelayedSpan[] = [];
  const traces = new WorkerTraces((spans) => exported.push(...spans));
  traces.receive({ spans: [span(TRACE)] });
  expect(exported).toEqual([]);

  const first = traces.begin({ traceparent: `00-${TRACE}-b7ad6b7169203331-01` });
  const second = traces.begin({ traceparent: `00-${TRACE}-c7ad6b7169203331-01` });
  traces.receive({ spans: [span(TRACE), span(OTHER), { name: "forged" }] });
  expect(exported.map((relayed) => relayed.traceId)).toEqual([TRACE]);

  first();
  first();
  traces.receive({ spans: [span(TRACE, "10f067aa0ba902b7")] });
  expect(exported).toHaveLength(2);
  second();
  traces.receive({ spans: [span(TRACE, "20f067aa0ba902b7")] });
  expect(exported).toHaveLength(2);
});

test("untraced calls and malformed payloads cost nothing and export nothing", () => {
  const exported: RelayedSpan[] = [];
  const traces = new WorkerTraces((spans) => exported.push(...spans));
  traces.begin(undefined)();
  traces.begin({ traceparent: "not a traceparent" })();
  const open = traces.begin({ traceparent: `00-${TRACE}-b7ad6b7169203331-01` });
  for (const payload of [undefined, null, "spans", { spans: "x" }, { spans: Array(257).fill(span(TRACE)) }]) {
    traces.receive(payload);
  }
  expect(exported).toEqual([]);
  open();
});
