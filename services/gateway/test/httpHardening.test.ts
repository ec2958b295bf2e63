// The HTTP surface under abuse: the protected-resource metadata never names a resource after the
// request's Host header; clients without a valid token are rate-limited per address; slow clients
// (a byte now and then, never a whole header) do not keep a normal client from being served, and
// are cut off. The header timeout is the production one scaled down (10 s to 200 ms).
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { tenancyConfig } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiKeyStore } from "../src/auth/apiKeys.js";
import { BearerAuthenticator } from "../src/auth/authenticator.js";
import { type RunningGateway, startGateway } from "../src/gateway.js";
import { StaticRunnerRouter } from "../src/routing/staticRouter.js";
import { StaticWorkspaceResolver } from "../src/workspaces.js";

const tenancy = tenancyConfig({ tenants: { acme: { workspaces: ["web"] } }, keys: { acme: { tenant: "acme" } } });
const TOKEN = tenancy.tokens.acme;
/** Whole request headers within this time, ms (production: 10 000), checked every CHECK_MS. */
const HEADERS_MS = 200;
const CHECK_MS = 50;
/** A slow client's pause between two bytes, ms: well within HEADERS_MS, so only the header deadline cuts it off. */
const DRIP_MS = 50;
let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    router: new StaticRunnerRouter("127.0.0.1:1"),
    workspaces: new StaticWorkspaceResolver({ tenant: "acme", workspace: "web" }),
    authenticator: new BearerAuthenticator({
      apiKeys: new ApiKeyStore(tenancy.apiKeys.keys),
    }),
    unauthenticatedPerSecond: 5,
    httpTimeouts: { headersMs: HEADERS_MS, checkIntervalMs: CHECK_MS },
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

test("200 clients dripping a header byte by byte do not stop a normal client, and are cut off by the header timeout", async () => {
  const url = new URL(gateway.url);
  const slow: Socket[] = [];
  const answers: Promise<string>[] = [];
  for (let i = 0; i < 200; i++) {
    const socket = connect(Number(url.port), url.hostname);
    socket.on("error", () => {});
    let answer = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
    answers.push(new Promise((resolve) => socket.once("close", () => resolve(answer))));
    slow.push(socket);
  }
  // The start of a request, then one byte of a header value at a time: never a whole header.
  const header = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  let sent = 0;
  const drip = setInterval(() => {
    for (const socket of slow) if (!socket.destroyed) socket.write(header[sent] ?? "a");
    sent++;
  }, DRIP_MS);
  try {
    const answer = await fetch(new URL("/healthz", gateway.url));
    expect(answer.status).toBe(200);
    // Node's header timeout answers 408 and closes every one of them, though each keeps sending.
    const statusLines = (await Promise.all(answers)).map((text) => text.split("\r\n")[0]);
    expect(new Set(statusLines)).toEqual(new Set(["HTTP/1.1 408 Request Timeout"]));
  } finally {
    clearInterval(drip);
    for (const socket of slow) socket.destroy();
  }
  // Far above HEADERS_MS, far below the production 10 s: fails if the gateway ignored httpTimeouts.
}, 5_000);
