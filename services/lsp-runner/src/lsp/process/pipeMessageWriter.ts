// JSON-RPC messages onto a pipe (a language server's stdin, a tenant worker's stdin or stdout),
// each message one write of its header and body together, in order, none waiting for the write
// before it to complete. vscode-jsonrpc's StreamMessageWriter writes the header and then the body,
// each awaited, behind a one-message-at-a-time lock: two system calls and at least two event-loop
// turns per message, and concurrent calls queue behind each other's writes.
import type { Writable } from "node:stream";
import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc/node.js";

export class PipeMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  /**
   * `gone`: true once the reader is known dead (its exit is reported elsewhere): messages are then
   * dropped, and a failed write is no error (EPIPE from a process that just died).
   */
  constructor(
    private readonly stream: Writable,
    private readonly gone: () => boolean = () => false,
  ) {
    super();
    stream.on("error", (error) => this.fireError(error));
    stream.on("close", () => this.fireClose());
  }

  /** Resolves once the stream took the message; rejects (and fires onError) when the write failed. */
  write(message: Message): Promise<void> {
    if (this.gone()) return Promise.resolve();
    const body = Buffer.from(JSON.stringify(message), "utf8");
    const frame = Buffer.concat([Buffer.from(`Content-Length: ${body.byteLength}\r\n\r\n`, "ascii"), body]);
    return new Promise((resolve, reject) => {
      this.stream.write(frame, (error) => {
        if (!error || this.gone()) return resolve();
        this.errorCount++;
        this.fireError(error, message, this.errorCount);
        reject(error);
      });
    });
  }

  end(): void {
    this.stream.end();
  }
}
