import { PassThrough, Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { type Message, StreamMessageReader } from "vscode-jsonrpc/node.js";
import { PipeMessageWriter } from "./pipeMessageWriter.js";

const request = (id: number, text: string): Message =>
  ({ jsonrpc: "2.0", id, method: "textDocument/hover", params: { text } }) as Message;

/** What a vscode-jsonrpc reader makes of everything written to `pipe`, once `count` messages came. */
function readMessages(pipe: PassThrough, count: number): Promise<Message[]> {
  const reader = new StreamMessageReader(pipe);
  const messages: Message[] = [];
  return new Promise((resolve) => {
    reader.listen((message) => {
      messages.push(message);
      if (messages.length === count) {
        reader.dispose();
        resolve(messages);
      }
    });
  });
}

describe("PipeMessageWriter", () => {
  test("each message is one chunk, header and body together, and a JSON-RPC reader reads them in order", async () => {
    const pipe = new PassThrough();
    const chunks: Buffer[] = [];
    pipe.on("data", (chunk: Buffer) => chunks.push(chunk));
    const read = readMessages(pipe, 3);
    const writer = new PipeMessageWriter(pipe);
    // Not awaited one by one: concurrent callers' writes keep their order.
    await Promise.all([writer.write(request(1, "a")), writer.write(request(2, "é🎉")), writer.write(request(3, "c"))]);
    expect(await read).toEqual([request(1, "a"), request(2, "é🎉"), request(3, "c")]);
    expect(chunks).toHaveLength(3);
    const body = JSON.stringify(request(2, "é🎉"));
    expect(chunks[1]!.toString("utf8")).toBe(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });

  test("a failed write rejects and is reported on onError, unless the reader is gone", async () => {
    const failing = () =>
      new Writable({
        write(_chunk, _encoding, done) {
          done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
        },
      }).on("error", () => {});
    const reported: string[] = [];
    const writer = new PipeMessageWriter(failing());
    writer.onError(([error]) => reported.push(error.message));
    await expect(writer.write(request(1, "a"))).rejects.toThrow("EPIPE");
    expect(reported).toContain("write EPIPE");

    let gone = false;
    const quiet = new PipeMessageWriter(failing(), () => gone);
    gone = true;
    await expect(quiet.write(request(2, "b"))).resolves.toBeUndefined();
  });

  test("nothing is written once the reader is gone", async () => {
    const pipe = new PassThrough();
    const chunks: Buffer[] = [];
    pipe.on("data", (chunk: Buffer) => chunks.push(chunk));
    const writer = new PipeMessageWriter(pipe, () => true);
    await writer.write(request(1, "a"));
    expect(chunks).toEqual([]);
  });
});
