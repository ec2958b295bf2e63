// A language server whose hover takes as long as the hovered file says, the way a real server
// working through a very large file does: "spin <ms>" keeps a CPU busy for that long, "block <ms>"
// blocks just as long without using the CPU (what a deadlocked server looks like), anything else
// answers at once. Every hover answers "pid <its pid>". Its message loop is blocked meanwhile, so
// the liveness probe goes unanswered until the work is done.
import { onMessages, send } from "./stdioMessages.mjs";

const texts = new Map();
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function work(text) {
  const [what, ms] = text.trim().split(/\s+/);
  const until = Date.now() + Number(ms);
  if (what === "spin") while (Date.now() < until) Math.sqrt(Math.random());
  else if (what === "block") Atomics.wait(sleeper, 0, 0, Number(ms));
}

onMessages(({ method, id, params }) => {
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
});
