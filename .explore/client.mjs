// usage: npx node .explore/client.mjs <dir> '<json list of [tool,args]>'
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
const [dir, callsJson, ...extra] = process.argv.slice(2);
const child = spawn(process.execPath, ["apps/cli/bin/lspmesh.js", "serve", dir, "--port", "0", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
let out = ""; let err = "";
child.stderr.on("data", (d) => { err += d; if (process.env.SHOWERR) process.stderr.write(d); });
const url = await new Promise((res, rej) => { child.stdout.on("data", (d) => { out += d; const m = /at (http:\/\/\S+\/mcp)/.exec(out); if (m) res(new URL(m[1])); }); child.on("exit", (c) => rej(new Error("exit " + c + err))); });
const client = new Client({ name: "x", version: "1" });
await client.connect(new StreamableHTTPClientTransport(url));
for (const [tool, args] of JSON.parse(callsJson)) {
  const t0 = Date.now();
  try {
    const r = await client.callTool({ name: tool, arguments: args });
    console.log(`=== ${tool} ${JSON.stringify(args)} (${Date.now() - t0} ms) isError=${!!r.isError}`);
    console.log(r.content.map((c) => c.text).join("\n").slice(0, 3000));
    if (process.env.SC) console.log(JSON.stringify(r.structuredContent, null, 1).slice(0, 3000));
  } catch (e) { console.log(`=== ${tool} threw`, e.message); }
}
await client.close(); child.kill("SIGINT");
