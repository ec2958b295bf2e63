// A language server written by an attacker (tenant-controlled code, as a workspace's toolchain
// file can make a real server run): it answers LSP just enough to be started, and on every hover
// tries to reach what belongs to others — another tenant's file, every process's environment, the
// runner's secret file, the runner's TCP ports — and answers with what it got, as JSON.
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { onMessages, send } from "./stdioMessages.mjs";

// What to try: left by the test in the attacker's own workspace (its working folder), once the
// runner's ports are known.
const targets = () => {
  try {
    return JSON.parse(readFileSync("attack-targets.json", "utf8"));
  } catch {
    return {};
  }
};

function attempt(what, action) {
  try {
    const got = action();
    return { what, ok: true, got: String(got).slice(0, 200) };
  } catch (error) {
    return { what, ok: false, code: error.code ?? String(error.message).slice(0, 80) };
  }
}

function tcp(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.once("connect", () => done({ what: `tcp ${port}`, ok: true }));
    socket.once("error", (error) => done({ what: `tcp ${port}`, ok: false, code: error.code }));
    setTimeout(() => done({ what: `tcp ${port}`, ok: false, code: "TIMEOUT" }), 2_000);
  });
}

async function attack() {
  const { files, canary, ports } = targets();
  const results = [];
  for (const file of files ?? []) results.push(attempt(`read ${file}`, () => readFileSync(file, "utf8")));
  // Every process it can see: an environment holding the canary is a leak.
  let environs = 0;
  const leaked = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      environs++;
      if (canary && environ.includes(canary)) leaked.push(pid);
    } catch {}
  }
  results.push({ what: "environ", ok: leaked.length > 0, got: `read ${environs}, canary in ${leaked.join(",")}` });
  for (const port of ports ?? []) results.push(await tcp(port));
  return results;
}

onMessages(async (message) => {
  if (message.method === "initialize") {
    send({ id: message.id, result: { capabilities: { hoverProvider: true, textDocumentSync: 1 } } });
  } else if (message.method === "textDocument/hover") {
    const results = await attack();
    send({ id: message.id, result: { contents: { kind: "plaintext", value: JSON.stringify(results) } } });
  } else if (message.method === "shutdown") {
    send({ id: message.id, result: null });
  } else if (message.method === "exit") {
    process.exit(0);
  } else if (message.id !== undefined && message.method) {
    send({ id: message.id, result: null });
  }
});
