import { spawn } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
const child = spawn(process.execPath, ["apps/cli/bin/lspmesh.js", "serve", "/tmp/huge", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
let out = ""; let err = "";
child.stderr.on("data", (d) => { err += d; });
const url = await new Promise((res) => child.stdout.on("data", (d) => { out += d; const m = /at (http:\/\/\S+\/mcp)/.exec(out); if (m) res(new URL(m[1])); }));
const client = new Client({ name: "x", version: "1" });
await client.connect(new StreamableHTTPClientTransport(url));
const t0 = Date.now();
for (let i = 0; i < 12; i++) {
  const r = await client.callTool({ name: "hover", arguments: { file: "main.py", symbol: "function_1", line: 3 } });
  console.log(Math.round((Date.now() - t0) / 1000), "s", r.content[0].text.slice(0, 200).replace(/\n/g, " | "));
  if (!r.isError && !/No hover|Partial|not ready/.test(r.content[0].text)) break;
  await new Promise((r) => setTimeout(r, 5000));
}
const s = await client.callTool({ name: "workspace_status", arguments: {} });
console.log(s.content[0].text.slice(0, 600));
console.log((err.match(/"msg":"[^"]*(fail|restart)[^"]*"/g) ?? []).slice(0, 5).join("\n"));
await client.close(); child.kill("SIGINT");
