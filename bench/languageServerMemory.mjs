#!/usr/bin/env node
// Resident memory of language servers on a real repository, for sizing runner pods (requests and
// limits: docs/deploy.md, "Sizing"). Starts `lspmesh serve DIR`, warms the language up with the
// calls an agent makes (outline, workspace symbols, references of a symbol), then sums the RSS of
// every process under serve (the language servers and their children) and of serve itself.
// Baseline in the same run: the same figures on the small TypeScript or Python test fixture.
// Usage: node bench/languageServerMemory.mjs DIR FILE SYMBOL LINE   (after `npm ci`)
//   e.g. node bench/languageServerMemory.mjs ~/src/hono src/hono-base.ts Hono 1
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const CLI = fileURLToPath(new URL("../apps/cli/bin/lspmesh.js", import.meta.url));
const [dir, file, symbol, line] = process.argv.slice(2);
if (!dir || !file || !symbol) {
  console.error("usage: node bench/languageServerMemory.mjs DIR FILE SYMBOL [LINE]");
  process.exit(2);
}

function rssKiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function descendants(root) {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const found = [];
  const walk = (pid) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

async function measure(workspace, path, name, hintLine) {
  const child = spawn(process.execPath, [CLI, "serve", workspace, "--port", "0", "--quiet"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      const match = /at (http:\/\/\S+\/mcp)/.exec(out);
      if (match) resolve(new URL(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const client = new Client({ name: "memory-bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url));
  const call = (tool, args) => client.callTool({ name: tool, arguments: args }, undefined, { timeout: 300_000 });
  const started = Date.now();
  await call("document_symbols", { file: path });
  await call("workspace_symbols", { query: name });
  const refs = await call("find_references", {
    file: path,
    symbol: name,
    ...(hintLine ? { line: Number(hintLine) } : {}),
  });
  await call("diagnostics", { files: [path], wait_ms: 30_000 });
  const warmMs = Date.now() - started;
  const servers = descendants(child.pid).reduce((sum, pid) => sum + rssKiB(pid), 0);
  const own = rssKiB(child.pid);
  const text = refs.content.map((part) => part.text ?? "").join("\n");
  await client.close();
  child.kill("SIGINT");
  await once(child, "exit");
  return { servers: servers / 1024, own: own / 1024, warmMs, answer: text.split("\n")[0] };
}

const typescript = /\.[cm]?[jt]sx?$/.test(file);
const fixture = fileURLToPath(
  new URL(`../test/kit/fixtures/${typescript ? "typescript-basic" : "python-basic"}`, import.meta.url),
);
const baseline = typescript
  ? await measure(fixture, "src/main.ts", "PoliteGreeter", 3)
  : await measure(fixture, "src/main.py", "PoliteGreeter", 3);
const real = await measure(dir, file, symbol, line);
const row = (name, m) =>
  `${name.padEnd(28)} servers ${m.servers.toFixed(0).padStart(5)} MiB   serve ${m.own.toFixed(0).padStart(4)} MiB   warm-up ${(m.warmMs / 1000).toFixed(1).padStart(5)} s   ${m.answer}`;
console.log(row("fixture (baseline)", baseline));
console.log(row(dir, real));
console.log(`ratio servers: ${(real.servers / baseline.servers).toFixed(1)}× the fixture`);
