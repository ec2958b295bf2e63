import { expect, test } from "vitest";
import { FileEventsError, MAX_CHANGES_PER_MESSAGE, parseFileEvents } from "./fileEvents.js";
import { encodeJson } from "./payloads.js";

test("a well-formed message parses, keeping only file and kind", () => {
  const message = parseFileEvents(
    encodeJson({ v: 1, changes: [{ file: "src/a.ts", kind: "changed", extra: true }], note: "x" }),
  );
  expect(message).toEqual({ v: 1, changes: [{ file: "src/a.ts", kind: "changed" }] });
});

test.each([
  ["not JSON", new TextEncoder().encode("{"), /not JSON/],
  ["a wrong version", encodeJson({ v: 2, changes: [] }), /"v": 1/],
  ["no changes", encodeJson({ v: 1, changes: [] }), /non-empty array/],
  ["an empty path", encodeJson({ v: 1, changes: [{ file: "", kind: "changed" }] }), /changes\[0\]\.file/],
  ["an unknown kind", encodeJson({ v: 1, changes: [{ file: "a", kind: "moved" }] }), /changes\[0\]\.kind/],
  [
    "too many changes",
    encodeJson({
      v: 1,
      changes: Array.from({ length: MAX_CHANGES_PER_MESSAGE + 1 }, () => ({ file: "a", kind: "changed" })),
    }),
    /split the batch/,
  ],
])("%s is refused with a reason", (_name, bytes, reason) => {
  expect(() => parseFileEvents(bytes)).toThrow(FileEventsError);
  expect(() => parseFileEvents(bytes)).toThrow(reason);
});
