// The multi-tenant deployment on loopback, every part a real process: nats-server, three
// `lspmesh runner`s on one workspaces root, two `lspmesh gateway`s reading the runner registry
// from NATS KV, two tenants with API keys. Runners register themselves (LSPMESH_NATS_URL, with the
// id and address the test gives them).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rankByHrw } from "@lspmesh/gateway";
import {
  fixturePath,
  type GatewayProcess,
  type NatsServer,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

const FIXTURE = fixturePath("typescript-basic");
const ACME = ["web", "api", "lib", "tools"];
const GLOBEX = ["shop", "admin"];
/**
 * Registry heartbeat of the runners, ms: a killed runner leaves the registry after 3 of them
 * (the kit's default is 2 000; this suite waits for that once and its workspaces are small).
 */
const HEARTBEAT_MS = 1_000;
const KEY = (workspace: string) => ({ tenant: "acme", workspace, language: "typescript" });

const ISSUER = "https://auth.example.test/";
const AUDIENCE = "lspmesh";

let root: string;
let nats: NatsServer;
let jwksServer: Server;
let signJwt: (claims: Record<string, unknown>, expiresIn?: string) => Promise<string>;
let tokens: { acme: string; globex: string };
const runners = new Map<string, RunnerProcess>();
const gateways: GatewayProcess[] = [];
const clients: Array<{ close(): Promise<void> }> = [];

/** Runner ids whose HRW split of acme's workspaces leaves one runner with some but not all. */
function runnerIds(): string[] {
  for (let attempt = 0; ; attempt++) {
    const ids = [0, 1, 2].map((i) => `runner-${attempt}-${i}`);
    const owners = ACME.map(
      (workspace) =>
        rankByHrw(
          KEY(workspace),
          ids.map((id) => ({ id })),
        )[0]!.id,
    );
    const counts = ids.map((id) => owners.filter((owner) => owner === id).length);
    if (counts.some((count) => count > 0 && count < ACME.length) && counts.filter((c) => c > 0).length >= 2) return ids;
  }
}

function pascal(name: string): string {
  return name[0]!.toUpperCase() + name.slice(1);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-cluster-"));
  const workspaces = join(root, "workspaces");
  // Every acme workspace declares Widget<Name> and makeWidget; acme/web and globex/shop are the fixture.
  for (const workspace of ACME) {
    const dir = join(workspaces, "acme", workspace);
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, lib: ["ES2022"], types: [] }, include: ["src"] }),
    );
    const name = `Widget${pascal(workspace)}`;
    writeFileSync(
      join(dir, "src/index.ts"),
      `export class ${name} {\n  size = 1;\n}\n\nexport function makeWidget(): ${name} {\n  return new ${name}();\n}\n`,
    );
  }
  cpSync(FIXTURE, join(workspaces, "acme", "web"), { recursive: true });
  for (const workspace of GLOBEX) cpSync(FIXTURE, join(workspaces, "globex", workspace), { recursive: true });

  const tenancy = writeTenancyFiles(root, {
    tenants: {
      acme: { workspaces: ACME, limits: { callsPerSecond: 100, concurrentCalls: 32 } },
      globex: { workspaces: GLOBEX, limits: { callsPerSecond: 2 } },
    },
    keys: { acme: { tenant: "acme" }, globex: { tenant: "globex" } },
  });
  tokens = tenancy.tokens;

  // An identity provider's JWKS, served over HTTP as in production.
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(publicKey)), kid: "test-key", alg: "ES256", use: "sig" }],
  });
  jwksServer = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(jwks));
  await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
  const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
  signJwt = (claims, expiresIn = "5m") =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "test-key" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject("ide-agent")
      .setIssuedAt()
      .setExpirationTime(expiresIn)
      .sign(privateKey);

  nats = await startNatsServer({ secured: { tenants: ["acme", "globex"] } });
  const ids = runnerIds();
  // Runners and gateways start side by side (a gateway may start before any runner); whatever
  // started is kept for afterAll even when something else fails.
  const started = new Map<string, RunnerProcess>();
  const outcomes = await Promise.allSettled([
    ...ids.map(async (id) => {
      started.set(id, await startRunnerProcess(workspaces, nats, id, { heartbeatMs: HEARTBEAT_MS }));
    }),
    ...[0, 1].map(async () => {
      gateways.push(
        await startGatewayProcess({ natsUrl: nats, ...tenancy, jwt: { jwksUrl, issuer: ISSUER, audience: AUDIENCE } }),
      );
    }),
  ]);
  for (const id of ids) if (started.has(id)) runners.set(id, started.get(id)!);
  for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
  // Both gateways see all three runners before the tests start.
  for (const gateway of gateways) {
    await waitFor("3 live runners", async () => (await gateway.liveRunners()) === 3);
  }
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await Promise.all([...runners.values()].map((runner) => runner.stop()));
  await nats?.close();
  jwksServer?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

async function client(gateway: GatewayProcess, token: string): Promise<Client> {
  const created = new Client({ name: "cluster-test", version: "1.0.0" });
  await created.connect(
    new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  clients.push(created);
  return created;
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await c.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
}

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

/** The runners (by id) holding a typescript session for an acme workspace. */
async function holders(workspace: string): Promise<string[]> {
  const found: string[] = [];
  for (const [id, runner] of runners) {
    if (runner.child.exitCode !== null || runner.child.signalCode !== null) continue;
    if ((await runner.sessions("acme", workspace)).includes("typescript")) found.push(id);
  }
  return found;
}

function hrwOrder(workspace: string, ids = [...runners.keys()]): string[] {
  return rankByHrw(
    KEY(workspace),
    ids.map((id) => ({ id })),
  ).map((entry) => entry.id);
}

describe("tenancy", () => {
  test("each tenant sees only its workspaces, through either gateway", async () => {
    for (const gateway of gateways) {
      const acme = await call(await client(gateway, tokens.acme), "workspace_status", {});
      expect(acme.structuredContent?.workspaces).toEqual([...ACME].sort());
      const globex = await call(await client(gateway, tokens.globex), "workspace_status", {});
      expect(globex.structuredContent?.workspaces).toEqual([...GLOBEX].sort());
    }
  });

  test("JWTs from the identity provider map to their tenant and workspaces; bad ones get 401", async () => {
    const token = await signJwt({ tenant: "globex", scope: "lsp:read", workspaces: ["shop"] });
    for (const gateway of gateways) {
      const globex = await call(await client(gateway, token), "workspace_status", {});
      expect(globex.structuredContent?.workspaces).toEqual(["shop"]);
    }
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const post = (bearer: string) =>
      fetch(gateways[0]!.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: initialize,
      });
    const expired = await post(await signJwt({ tenant: "globex", scope: "lsp:read" }, "-1h"));
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toMatch(
      /error="invalid_token", error_description="the token has expired"/,
    );
    const tampered = `${token.slice(0, -4)}AAAA`;
    expect((await post(tampered)).status).toBe(401);
  });

  test("cross-tenant ids, path tricks and forged names fail exactly like missing workspaces", async () => {
    const acme = await client(gateways[0]!, tokens.acme);
    const hover = (workspace: string) => call(acme, "hover", { workspace, file: "src/main.ts", line: 1, column: 1 });
    const missing = text(await hover("nowhere"));
    expect(missing).toMatch(/^NOT_FOUND: unknown workspace 'nowhere'/);
    for (const forged of ["shop", "admin", "../globex/shop", "globex/shop", "SHOP", "shop ", "acme/../globex/shop"]) {
      const answer = text(await hover(forged));
      expect(answer.replace(`'${forged}'`, "'X'"), forged).toBe(missing.replace("'nowhere'", "'X'"));
      // Nothing beyond the caller's own words: no owner, no existence hint.
      expect(answer.replace(forged, ""), forged).not.toContain("globex");
    }
    // A file path out of acme/web into globex's folder is refused like any outside path.
    const into = text(
      await call(acme, "hover", { workspace: "web", file: "../../globex/shop/src/main.ts", line: 1, column: 1 }),
    );
    const nowhere = text(
      await call(acme, "hover", { workspace: "web", file: "../../globex/gone/src/main.ts", line: 1, column: 1 }),
    );
    expect(into).toMatch(/^OUTSIDE_WORKSPACE: /);
    expect(into.replace("shop", "X")).toBe(nowhere.replace("gone", "X"));
  });
});

test("both gateways route a workspace to the same runner, the HRW first", async () => {
  const [a, b] = [await client(gateways[0]!, tokens.acme), await client(gateways[1]!, tokens.acme)];
  const args = { workspace: "web", file: "src/main.ts", symbol: "PoliteGreeter", line: 3 };
  expect(text(await call(a, "find_definition", args))).toContain("src/greeter.ts:7:14");
  expect(text(await call(b, "find_definition", args))).toContain("src/greeter.ts:7:14");
  expect(await holders("web")).toEqual([hrwOrder("web")[0]]);
});

test("calls reach the tenant's worker straight: the runner hands a connection per tenant to its worker", async () => {
  const acme = await client(gateways[0]!, tokens.acme);
  const owner = runners.get(hrwOrder("web")[0]!)!;
  expect(owner.workerAddress).toMatch(/^127\.0\.0\.1:\d+$/);
  const handedOver = async () =>
    Number(/^lspmesh_runner_worker_connections_total (\d+)$/m.exec(await owner.metrics())?.[1] ?? 0);
  const args = { workspace: "web", file: "src/main.ts", symbol: "PoliteGreeter", line: 3 };
  // The first calls may be relayed while the gateway's connection to the worker comes up.
  await waitFor("a connection handed to acme's worker", async () => {
    expect(text(await call(acme, "find_definition", args))).toContain("src/greeter.ts:7:14");
    return (await handedOver()) > 0;
  });
  // Once up, the same answers come on it, without a new connection per call.
  const before = await handedOver();
  for (let i = 0; i < 5; i++) expect(text(await call(acme, "find_definition", args))).toContain("src/greeter.ts:7:14");
  expect(await handedOver()).toBe(before);
});

test("a rate-limited tenant gets RATE_LIMITED while the other is unaffected", async () => {
  const globex = await client(gateways[0]!, tokens.globex);
  const acme = await client(gateways[0]!, tokens.acme);
  const [globexResults, acmeResults] = await Promise.all([
    Promise.all(Array.from({ length: 8 }, () => call(globex, "workspace_status", {}))),
    Promise.all(Array.from({ length: 8 }, () => call(acme, "workspace_status", {}))),
  ]);
  const limited = globexResults.filter((result) => result.isError);
  expect(limited.length).toBeGreaterThan(0);
  for (const result of limited) expect(text(result)).toMatch(/^RATE_LIMITED: .*retry after \d+ s/);
  expect(acmeResults.filter((result) => result.isError)).toEqual([]);
  expect(await gateways[0]!.metrics()).toMatch(/lspmesh_rate_limited_total\{tenant="globex",reason="rate"\} [1-9]/);
});

describe("search across workspaces and runner failure", () => {
  let victim: string;

  test("search_symbols merges and ranks results from every workspace", async () => {
    const acme = await client(gateways[0]!, tokens.acme);
    // Cold language servers may miss the search deadline: such answers are partial, so retry.
    const answer = await waitFor(
      "a complete search",
      async () => {
        const result = await call(acme, "search_symbols", { query: "Widget" });
        return result.structuredContent?.partial === false && result;
      },
      { timeoutMs: 90_000 },
    );
    const symbols = answer.structuredContent!.symbols as Array<{ name: string; kind: string; workspace: string }>;
    const classes = symbols.slice(0, 4);
    expect(classes.map((s) => s.kind)).toEqual(["class", "class", "class", "class"]);
    expect(classes.map((s) => `${s.workspace}:${s.name}`).sort()).toEqual(
      ACME.map((w) => `${w}:Widget${pascal(w)}`).sort(),
    );
    expect(
      symbols
        .filter((s) => s.name === "makeWidget")
        .map((s) => s.workspace)
        .sort(),
    ).toEqual([...ACME].sort());
  });

  test("with one runner stopped, search still finds its workspaces' symbols, from the index in NATS", async () => {
    // The runner owning some (not all) of acme's workspaces; its registry entry is still live.
    const owners = new Map(ACME.map((workspace) => [workspace, hrwOrder(workspace)[0]!]));
    victim = [...runners.keys()].find((id) => {
      const owned = ACME.filter((w) => owners.get(w) === id).length;
      return owned > 0 && owned < ACME.length;
    })!;
    await runners.get(victim)!.kill();

    const acme = await client(gateways[1]!, tokens.acme);
    const answer = await call(acme, "search_symbols", { query: "Widget" });
    const structured = answer.structuredContent as {
      partial: boolean;
      symbols: Array<{ workspace: string }>;
      workspaces: Array<{ workspace: string; outcome: string; source: string }>;
    };
    expect(structured.partial).toBe(false);
    expect(new Set(structured.symbols.map((s) => s.workspace))).toEqual(new Set(ACME));
    for (const workspace of ACME) {
      expect(structured.workspaces.find((w) => w.workspace === workspace)).toMatchObject({
        outcome: "ok",
        source: "index",
      });
    }
  });

  test("the killed runner is noticed: its workspaces are served by the next runner on the next call", async () => {
    const workspace = ACME.find((w) => hrwOrder(w)[0] === victim)!;
    const next = hrwOrder(workspace).find((id) => id !== victim)!;
    for (const gateway of gateways) {
      const acme = await client(gateway, tokens.acme);
      const result = await call(acme, "document_symbols", { workspace, file: "src/index.ts" });
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result)).toContain(`Widget${pascal(workspace)}`);
    }
    expect(await holders(workspace)).toEqual([next]);

    // Without heartbeats the registry drops it after 3 heartbeat periods; both gateways agree.
    for (const gateway of gateways) {
      await waitFor("the dead runner to leave the registry", async () => (await gateway.liveRunners()) === 2);
    }
    const acme = await client(gateways[1]!, tokens.acme);
    const again = await waitFor(
      "a complete search again",
      async () => {
        const result = await call(acme, "search_symbols", { query: "Widget" });
        return result.structuredContent?.partial === false && result;
      },
      { timeoutMs: 90_000 },
    );
    const workspaces = (again.structuredContent!.symbols as Array<{ workspace: string }>).map((s) => s.workspace);
    expect(new Set(workspaces)).toEqual(new Set(ACME));
  });
});
