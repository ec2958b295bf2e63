// The framing the runner reads from a language server's stdout, fuzzed: generated streams of
// valid messages, wrong and giant Content-Lengths, headers that never end, invalid UTF-8 and
// garbage between messages, cut into random chunks, through the same pipeline as a real server's
// output (MessageSizeGuard, then vscode-jsonrpc's StreamMessageReader). Always: every valid
// message before the first broken one arrives intact and in order, a broken stream is reported
// (or simply waits for more bytes), nothing throws, and nothing is buffered past the limits.
import { PassThrough } from "node:stream";
import { fuzzSettings } from "@lspmesh/test-kit";
import fc from "fast-check";
import { expect, test } from "vitest";
import { StreamMessageReader } from "vscode-jsonrpc/node.js";
import { type FramingProblem, MessageSizeGuard } from "./messageSizeGuard.js";

/**
 * Streams generated: 500 in `npm test`, the full 10 000 in `npm run test:faults`;
 * LSPMESH_FUZZ_RUNS and LSPMESH_FUZZ_SEED override (fuzzSettings).
 */
const FUZZ = fuzzSettings({ quick: 500, full: 10_000 });
const LIMIT = 4_096;

type Segment =
  | { kind: "message"; body: Record<string, unknown>; extraHeader: boolean }
  | { kind: "broken"; bytes: Buffer; why: string };

const jsonBody = fc.record({
  jsonrpc: fc.constant("2.0"),
  method: fc.string({ unit: "grapheme", maxLength: 12 }),
  params: fc.array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 20 }), fc.integer(), fc.boolean()), {
    maxLength: 4,
  }),
});

const message = fc.record({ kind: fc.constant("message" as const), body: jsonBody, extraHeader: fc.boolean() });

const broken = fc.oneof(
  // Content-Length larger than the body that follows (the reader then waits for more).
  jsonBody.map((body) => {
    const bytes = Buffer.from(JSON.stringify(body));
    return {
      kind: "broken" as const,
      why: "short body",
      bytes: Buffer.concat([Buffer.from(`Content-Length: ${bytes.length + 7}\r\n\r\n`), bytes]),
    };
  }),
  // A giant announced size.
  fc.integer({ min: LIMIT + 1, max: 2 ** 40 }).map((size) => ({
    kind: "broken" as const,
    why: "giant",
    bytes: Buffer.from(`Content-Length: ${size}\r\n\r\n{"jsonrpc":"2.0"`),
  })),
  // No Content-Length at all, or a malformed one.
  fc
    .constantFrom(
      "Content-Type: x\r\n\r\n{}",
      "Content-Length: -5\r\n\r\n",
      "Content-Length: 1e3\r\n\r\n",
      "Content-Length:\r\n\r\n",
    )
    .map((text) => ({ kind: "broken" as const, why: "bad header", bytes: Buffer.from(text) })),
  // A header block that never ends (a server printing logs to stdout).
  fc.string({ minLength: 1, maxLength: 64 }).map((line) => ({
    kind: "broken" as const,
    why: "endless header",
    bytes: Buffer.from(`${line.replaceAll("\r\n\r\n", "")}\n`.repeat(Math.ceil(9_000 / (line.length + 1)))),
  })),
  // Invalid UTF-8 / not JSON, with a correct length.
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((raw) => ({
    kind: "broken" as const,
    why: "not JSON",
    bytes: Buffer.concat([
      Buffer.from(`Content-Length: ${raw.length + 1}\r\n\r\n`),
      Buffer.from([0xff]),
      Buffer.from(raw),
    ]),
  })),
);

function encode(segment: Segment): Buffer {
  if (segment.kind === "broken") return segment.bytes;
  const bytes = Buffer.from(JSON.stringify(segment.body), "utf8");
  const type = segment.extraHeader ? "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" : "";
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n${type}\r\n`, "ascii"), bytes]);
}

/** Splits `bytes` at the given cut points (fractions of its length). */
function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * bytes.length)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) out.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return out;
}

test("any stream, any chunking: valid messages before the first broken one arrive intact, nothing throws", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.oneof({ weight: 4, arbitrary: message }, { weight: 1, arbitrary: broken }), { maxLength: 8 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
      async (segments, cuts) => {
        const problems: FramingProblem[] = [];
        const errors: unknown[] = [];
        const received: unknown[] = [];
        const input = new PassThrough();
        const guard = new MessageSizeGuard(LIMIT, (problem) => problems.push(problem));
        const reader = new StreamMessageReader(input.pipe(guard));
        reader.onError((error) => errors.push(error));
        reader.listen((message) => received.push(message));

        const stream = Buffer.concat(segments.map(encode));
        for (const chunk of chunks(stream, cuts)) input.write(chunk);
        input.end();
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 0));
        reader.dispose();

        const firstBroken = segments.findIndex((segment) => segment.kind === "broken");
        const intact = (firstBroken < 0 ? segments : segments.slice(0, firstBroken)).map(
          (segment) => (segment as Extract<Segment, { kind: "message" }>).body,
        );
        // Everything before the first broken segment arrives, in order, unchanged.
        expect(received.slice(0, intact.length)).toEqual(intact);
        if (firstBroken < 0) {
          expect(received).toHaveLength(intact.length);
          expect(problems).toEqual([]);
        }
        // A giant announced size is refused before its body is read, never buffered.
        const giant = segments.slice(0, firstBroken + 1).at(-1);
        if (giant?.kind === "broken" && giant.why === "giant") {
          expect(problems).toEqual([expect.objectContaining({ kind: "oversized" })]);
        }
        if (giant?.kind === "broken" && (giant.why === "endless header" || giant.why === "bad header")) {
          // Either refused as malformed, or (a header that parses after all) read as a message.
          expect(problems.length + errors.length + received.length).toBeGreaterThanOrEqual(intact.length);
        }
      },
    ),
    FUZZ,
  );
}, 300_000);
