// The floor of any MCP server on this machine: a process that answers the official MCP client
// with answers lspmesh gave before, byte for byte, doing nothing else (no tools, no validation, no
// language server). What a benchmark measures against it is what the client, HTTP and loopback
// cost by themselves; what lspmesh takes beyond it is lspmesh's own.
// Use: record lspmesh's answers with recordingFetch() (pass its fetch to connectMcp), then
// startReplayServer(recordings) runs this file as a child process on a free loopback port.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** One request's key: its method, and for tools/call the tool and its arguments. */
function keyOf(message) {
  if (message.method !== "tools/call") return message.method;
  return `tools/call ${message.params?.name} ${JSON.stringify(message.params?.arguments ?? {})}`;
}

/**
 * A fetch that remembers every JSON answer it saw, by request key: { fetch, recordings }. Only
 * JSON answers are recorded (tool calls without progress are answered with JSON).
 */
export function recordingFetch() {
  const recordings = {};
  const recordAnswer = async (init, response) => {
    if (!response.ok || !response.headers.get("content-type")?.includes("application/json")) return;
    const request = JSON.parse(String(init.body));
    const answer = await response.clone().json();
    if (request.id !== undefined && answer.result !== undefined) recordings[keyOf(request)] = answer.result;
  };
  return {
    recordings,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (init?.method === "POST" && typeof init.body === "string") await recordAnswer(init, response);
      return response;
    },
  };
}

/** Runs the replay server as a child process; resolves to { url, pid, close() }. */
export async function startReplayServer(recordings) {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-replay-"));
  const file = join(dir, "recordings.json");
  writeFileSync(file, JSON.stringify(recordings));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = await once(child.stdout.setEncoding("utf8"), "data");
  const port = Number(/port (\d+)/.exec(line)?.[1]);
  if (!port) throw new Error(`replay server did not start: ${line}`);
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    pid: child.pid,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The server itself: POST /mcp answers a recorded request, a notification gets 202, the rest 405. */
function serve(file) {
  const recordings = JSON.parse(readFileSync(file, "utf8"));
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result = recordings[keyOf(message)];
      const answer =
        result === undefined
          ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `not recorded: ${keyOf(message)}` } }
          : { jsonrpc: "2.0", id: message.id, result };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  server.listen(0, "127.0.0.1", () => console.log(`replay server on port ${server.address().port}`));
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) serve(process.argv[2]);
