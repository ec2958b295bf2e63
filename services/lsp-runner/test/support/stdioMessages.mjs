// LSP base protocol over this process's stdio for the test servers: Content-Length framing only.

/** Sends one JSON-RPC message on stdout. */
export function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

/** Calls `handle` with each message read from stdin, in order (one at a time when it is async). */
export function onMessages(handle) {
  let buffer = Buffer.alloc(0);
  let queue = Promise.resolve();
  process.stdin.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
      if (buffer.length < end + 4 + length) return;
      const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
      buffer = buffer.subarray(end + 4 + length);
      queue = queue.then(() => handle(message));
    }
  });
}
