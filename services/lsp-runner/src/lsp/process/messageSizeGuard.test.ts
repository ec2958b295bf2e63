import { describe, expect, test } from "vitest";
import { type FramingProblem, MessageSizeGuard } from "./messageSizeGuard.js";

function frame(body: string): Buffer {
  const bytes = Buffer.from(body, "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, "ascii"), bytes]);
}

/** Feeds `input` in chunks of `size` bytes and returns what came out and the problems reported. */
async function run(input: Buffer, size: number, limit = 1_000) {
  const problems: FramingProblem[] = [];
  const guard = new MessageSizeGuard(limit, (problem) => problems.push(problem));
  const out: Buffer[] = [];
  guard.on("data", (chunk: Buffer) => out.push(chunk));
  for (let i = 0; i < input.length; i += size) guard.write(input.subarray(i, i + size));
  guard.end();
  await new Promise((resolve) => guard.on("end", resolve));
  return { output: Buffer.concat(out), problems };
}

describe("MessageSizeGuard", () => {
  const messages = Buffer.concat([
    frame('{"jsonrpc":"2.0","id":1,"result":"héllo 😀"}'),
    Buffer.from("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n", "ascii"),
    frame('{"jsonrpc":"2.0","method":"x","params":[]}'),
    frame(""),
    frame('{"jsonrpc":"2.0","id":2,"result":null}'),
  ]);

  test.each([1, 3, 17, 4096])("passes messages through unchanged in %i-byte chunks", async (size) => {
    const { output, problems } = await run(messages, size);
    expect(problems).toEqual([]);
    expect(output.equals(messages)).toBe(true);
  });

  test("stops at a Content-Length over the limit, before the body arrives, and keeps what came before", async () => {
    const first = frame('{"id":1}');
    const input = Buffer.concat([first, Buffer.from("Content-Length: 5000\r\n\r\n"), Buffer.alloc(10, "a"), first]);
    const { output, problems } = await run(input, 7);
    expect(problems).toEqual([{ kind: "oversized", bytes: 5000, limit: 1_000 }]);
    expect(output.equals(first)).toBe(true);
  });

  test("a header block that never ends or has no length is malformed", async () => {
    expect((await run(Buffer.alloc(9_000, "x"), 1_000)).problems).toEqual([
      { kind: "malformed", detail: "a header block over 8 KiB" },
    ]);
    expect((await run(Buffer.from("Content-Type: x\r\n\r\n{}"), 5)).problems).toEqual([
      { kind: "malformed", detail: "a message without a valid Content-Length header" },
    ]);
  });
});
