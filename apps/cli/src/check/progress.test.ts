import { expect, test } from "vitest";
import { progressLine, wantsColor } from "./progress.js";

function stream(isTTY: boolean, columns = 40) {
  const written: string[] = [];
  return {
    written,
    isTTY,
    columns,
    write: (text: string) => written.push(text) > 0,
  } as unknown as NodeJS.WriteStream & {
    written: string[];
  };
}

test("progress is drawn in place on a terminal, cut to its width, and erased when done", () => {
  const tty = stream(true, 30);
  const progress = progressLine(tty);
  progress.update("lspmesh check: 3/40 files · base 1/40 · 12s");
  progress.done();
  expect(tty.written).toEqual(["\r\x1b[2Klspmesh check: 3/40 files · …", "\r\x1b[2K"]);
});

test("no progress at all when stderr is not a terminal (CI logs, pipes)", () => {
  const pipe = stream(false);
  const progress = progressLine(pipe);
  progress.update("lspmesh check: 1/2 files");
  progress.done();
  expect(pipe.written).toEqual([]);
});

test("colour only on a terminal, and never with NO_COLOR", () => {
  expect(wantsColor({ isTTY: true }, {})).toBe(true);
  expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
  expect(wantsColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
  expect(wantsColor({ isTTY: false }, {})).toBe(false);
  expect(wantsColor({}, {})).toBe(false);
});
