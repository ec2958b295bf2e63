// Sits between a language server's stdout and the JSON-RPC reader and checks each message's
// `Content-Length` header before the body arrives: the reader would otherwise buffer a message of
// any announced size. A message over the limit (or a header block that never ends) stops the flow
// and reports it, so the session can be stopped with a clear error instead of eating the runner's memory.
import { Transform, type TransformCallback } from "node:stream";

/** Largest message accepted from a language server by default, in bytes (64 MiB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** A header block longer than this (bytes) is not LSP framing (default 8 KiB). */
const MAX_HEADER_BYTES = 8 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n", "ascii");

export type FramingProblem =
  | { kind: "oversized"; bytes: number; limit: number }
  | { kind: "malformed"; detail: string };

export class MessageSizeGuard extends Transform {
  private header = Buffer.alloc(0);
  private bodyLeft = 0;
  private stopped = false;

  constructor(
    private readonly maxMessageBytes: number,
    private readonly onProblem: (problem: FramingProblem) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let offset = 0;
    while (!this.stopped && offset < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - offset);
        this.push(chunk.subarray(offset, offset + take));
        offset += take;
        this.bodyLeft -= take;
        continue;
      }
      const carried = this.header.length;
      this.header = Buffer.concat([this.header, chunk.subarray(offset)]);
      const end = this.header.indexOf(HEADER_END);
      if (end < 0) {
        if (this.header.length > MAX_HEADER_BYTES)
          this.stop({ kind: "malformed", detail: "a header block over 8 KiB" });
        break;
      }
      const length = contentLength(this.header.subarray(0, end).toString("ascii"));
      if (length === undefined) {
        this.stop({ kind: "malformed", detail: "a message without a valid Content-Length header" });
        break;
      }
      if (length > this.maxMessageBytes) {
        this.stop({ kind: "oversized", bytes: length, limit: this.maxMessageBytes });
        break;
      }
      this.push(this.header.subarray(0, end + HEADER_END.length));
      offset += end + HEADER_END.length - carried;
      this.header = Buffer.alloc(0);
      this.bodyLeft = length;
    }
    done();
  }

  private stop(problem: FramingProblem): void {
    // Nothing more is passed on; what the server still writes is dropped unread.
    this.stopped = true;
    this.header = Buffer.alloc(0);
    this.onProblem(problem);
  }
}

function contentLength(header: string): number | undefined {
  for (const line of header.split("\r\n")) {
    const match = /^content-length:\s*(\d+)\s*$/i.exec(line);
    if (match) return Number(match[1]);
  }
  return undefined;
}
