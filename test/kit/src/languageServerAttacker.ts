// A language server written by an attacker (tenant-controlled code, as a workspace's toolchain
// file can make a real server run), started by a runner whose languages file configures it: it
// answers LSP just enough to be started and, on every hover, tries to reach what belongs to others
// (another tenant's file, the runner's secret file, every process's environment, TCP ports of the
// runner and NATS) and answers with what it got, as JSON. `node languageServerAttacker.js
// TARGETS_FILE` runs the attempts once and prints them (the unconfined control).
// Node built-ins only: a runner image runs this file as it is, without the test kit.
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** What the attacker tries, left by the test in the attacker's own workspace as JSON. */
export interface AttackTargets {
  /** Files to read (as the runner sees them). */
  files: string[];
  /** A secret of the runner's environment (its NATS password): seen in any /proc/<pid>/environ, it leaked. */
  environCanary: string;
  /** TCP endpoints to connect to ("host:port"). */
  endpoints: string[];
}

/** One attempt: ok is true when the attacker got what it tried for. */
export interface AttackAttempt {
  what: string;
  ok: boolean;
  got?: string;
  code?: string;
}

/** Where the hovering attacker finds its targets: its working folder is the workspace. */
export const ATTACK_TARGETS_FILE = "attack-targets.json";

function attempt(what: string, action: () => unknown): AttackAttempt {
  try {
    return { what, ok: true, got: String(action()).slice(0, 200) };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    return { what, ok: false, code: failure.code ?? String(failure.message).slice(0, 80) };
  }
}

function tcp(endpoint: string): Promise<AttackAttempt> {
  const at = endpoint.lastIndexOf(":");
  const what = `tcp ${endpoint}`;
  return new Promise((resolve) => {
    const socket = connect({ host: endpoint.slice(0, at), port: Number(endpoint.slice(at + 1)) });
    const done = (result: AttackAttempt) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done({ what, ok: false, code: "TIMEOUT" }), 3_000);
    socket.once("connect", () => done({ what, ok: true }));
    socket.once("error", (error: NodeJS.ErrnoException) => done({ what, ok: false, code: error.code }));
  });
}

export async function attack(targets: AttackTargets): Promise<AttackAttempt[]> {
  const results = targets.files.map((file) => attempt(`read ${file}`, () => readFileSync(file, "utf8")));
  let environs = 0;
  const leaked: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      environs++;
      if (environ.includes(targets.environCanary)) leaked.push(pid);
    } catch {}
  }
  results.push({ what: "environ", ok: leaked.length > 0, got: `read ${environs}, canary in [${leaked.join(",")}]` });
  for (const endpoint of targets.endpoints) results.push(await tcp(endpoint));
  return results;
}

function serve(): void {
  let buffer = Buffer.alloc(0);
  const send = (message: Record<string, unknown>) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
    process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
    process.stdout.write(body);
  };
  const targets = (): AttackTargets => JSON.parse(readFileSync(ATTACK_TARGETS_FILE, "utf8"));
  process.stdin.on("data", async (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
      if (buffer.length < end + 4 + length) return;
      const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
      buffer = buffer.subarray(end + 4 + length);
      if (message.method === "initialize") {
        send({ id: message.id, result: { capabilities: { hoverProvider: true, textDocumentSync: 1 } } });
      } else if (message.method === "textDocument/hover") {
        const value = JSON.stringify(await attack(targets()).catch((error: Error) => [{ what: error.message }]));
        send({ id: message.id, result: { contents: { kind: "plaintext", value } } });
      } else if (message.method === "exit") {
        process.exit(0);
      } else if (message.id !== undefined && message.method) {
        send({ id: message.id, result: null });
      }
    }
  });
}

// Run as a program (a server, or the control with a targets file); imported, it only exports.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (file) process.stdout.write(`${JSON.stringify(await attack(JSON.parse(readFileSync(file, "utf8"))))}\n`);
  else serve();
}
