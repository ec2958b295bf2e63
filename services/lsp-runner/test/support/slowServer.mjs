// A language server whose hover takes as long as the hovered file says, the way a real server
// working through a very large file does: "spin <ms>" keeps a CPU busy for that long, "block <ms>"
// blocks just as long without using the CPU (what a deadlocked server looks like), anything else
// answers at once. Every hover answers "pid <its pid>". Its message loop is blocked meanwhile, so
// the liveness probe goes unanswered until the work is done.
let buffer = Buffer.alloc(0);
const texts = new Map();
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function work(text) {
  const [what, ms] = text.trim().split(/\s+/);
  const until = Date.now() + Number(ms);
  if (what === "spin") while (Date.now() < until) Math.sqrt(Math.random());
  else if (what === "block") Atomics.wait(sleeper, 0, 0, Number(ms));
}

process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
    if (buffer.length < end + 4 + length) return;
    const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
    buffer = buffer.subarray(end + 4 + length);
    const { method, id, params } = message;
    if (method === "initialize") {
      send({ id, result: { capabilities: { hoverProvider: true, textDocumentSync: 1 } } });
    } else if (method === "textDocument/didOpen") {
      texts.set(params.textDocument.uri, params.textDocument.text);
    } else if (method === "textDocument/hover") {
      work(texts.get(params.textDocument.uri) ?? "");
      send({ id, result: { contents: { kind: "plaintext", value: `pid ${process.pid}` } } });
    } else if (method === "exit") {
      process.exit(0);
    } else if (id !== undefined && method?.startsWith("$/")) {
      send({ id, error: { code: -32601, message: `unknown method ${method}` } });
    } else if (id !== undefined && method) {
      send({ id, result: null });
    }
  }
});
