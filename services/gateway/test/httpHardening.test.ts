// The HTTP surface under abuse: the protected-resource metadata never names a resource after the
// request's Host header; clients without a valid token are rate-limited per address; slow clients
// (a byte a second) do not keep a normal client from being served, and are cut off.
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiKeyStore, sha256Hex } from "../src/auth/apiKeys.js";
import { BearerAuthenticator } from "../src/auth/authenticator.js";
import { type RunningGateway, startGateway } from "../src/gateway.js";
import { StaticRunnerRouter } from "../src/routing/staticRouter.js";
import { StaticWorkspaceResolver } from "../src/workspaces.js";

const TOKEN = "acme-token-0123456789abcdef";
let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    router: new StaticRunnerRouter("127.0.0.1:1"),
    workspaces: new StaticWorkspaceResolver({ tenant: "acme", workspace: "web" }),
    authenticator: new BearerAuthenticator({
      apiKeys: new ApiKeyStore([{ id: "acme", sha256: sha256Hex(TOKEN), tenant: "acme", scopes: ["lsp:read"] }]),
    }),
    unauthenticatedPerSecond: 5,
  });
});
afterAll(() => gateway?.close());

/** GET with any Host header (fetch may not set one). */
function get(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const url = new URL(path, gateway.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the resource metadata and the 401 challenge name this gateway, whatever Host a request brings", async () => {
  const metadata = await get("/.well-known/oauth-protected-resource/mcp", { host: "evil.example" });
  expect(JSON.parse(metadata.body).resource).toBe(gateway.url);
  expect(metadata.body).not.toContain("evil.example");
});

test("requests without a valid token are limited per client address (429 with Retry-After)", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) {
    const answer = await fetch(gateway.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer guess-${i}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    statuses.push(answer.status);
  }
  expect(statuses.slice(0, 5).every((status) => status === 401)).toBe(true);
  expect(statuses).toContain(429);
  // A valid token is not held back by the address's unauthenticated requests.
  const valid = await fetch(gateway.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  expect(valid.status).toBe(200);
});

test("200 byte-a-second clients do not stop a normal client, and are cut off within the header timeout", async () => {
  const url = new URL(gateway.url);
  const slow: Socket[] = [];
  const closed: Promise<void>[] = [];
  for (let i = 0; i < 200; i++) {
    const socket = connect(Number(url.port), url.hostname);
    socket.on("error", () => {});
    closed.push(new Promise((resolve) => socket.once("close", () => resolve())));
    slow.push(socket);
  }
  const header = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  let sent = 0;
  const drip = setInterval(() => {
    for (const socket of slow) if (!socket.destroyed) socket.write(header[sent % header.length] ?? "a");
    sent++;
  }, 1000);
  try {
    const answer = await fetch(new URL("/healthz", gateway.url));
    expect(answer.status).toBe(200);
    // Node's header timeout (10 s, checked every second) closes every one of them.
    await Promise.all(closed);
  } finally {
    clearInterval(drip);
    for (const socket of slow) socket.destroy();
  }
}, 30_000);
