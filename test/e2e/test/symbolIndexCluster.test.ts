// The symbol index in a cluster, every part a real process: nats-server with JetStream, one
// `lspmesh runner` and one `lspmesh gateway` reading indexes from NATS KV. Two tenants: a search
// never returns or loads the other tenant's index. Killing the runner does not stop its symbols
// from being found (served from NATS), and the runner restarted with the same id catches up from
// the stored index, reading again only what changed while it was away. Long (a cluster, two
// tenants' indexes built cold): `npm run test:faults`; the quick tier keeps search_symbols' tenant
// checks in crossTenant and natsPermissions.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NATS_USERS, symbolIndexBucket, symbolIndexFileKey, symbolIndexMetaKey } from "@lspmesh/events";
import {
  type GatewayProcess,
  isFaultsTier,
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
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";

type Found = { workspace: string; name: string; location: { file: string } };

interface Structured {
  partial: boolean;
  total: number;
  symbols: Found[];
  text_matches: unknown[];
  workspaces: Array<{ workspace: string; outcome: string; source: string }>;
}
type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent: Structured };

const RUNNER_ID = "runner-index";

let root: string;
let workspaces: string;
let nats: NatsServer;
let nc: NatsConnection;
let runner: RunnerProcess;
let gateway: GatewayProcess;
let tokens: { acme: string; globex: string };
const clients: Client[] = [];

function write(tenant: string, workspace: string, file: string, text: string): void {
  const path = join(workspaces, tenant, workspace, file);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

async function client(token: string): Promise<Client> {
  const mcp = new Client({ name: "lspmesh-e2e", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  clients.push(mcp);
  return mcp;
}

const call = async (mcp: Client, name: string, args: Record<string, unknown>) =>
  (await mcp.callTool({ name, arguments: args })) as unknown as ToolResult;

async function kv(tenant: string) {
  return new Kvm(nc).open(symbolIndexBucket(tenant));
}

/** The stored meta of a workspace's index, once its bucket and meta exist. */
async function storedMeta(tenant: string, workspace: string) {
  try {
    return (await (await kv(tenant)).get(symbolIndexMetaKey(workspace)))?.json<{ state: string; epoch: number }>();
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-index-cluster-"));
  workspaces = join(root, "workspaces");
  for (const [tenant, workspace, name] of [
    ["acme", "web", "Web"],
    ["acme", "api", "Api"],
    ["globex", "shop", "Shop"],
  ] as const) {
    write(
      tenant,
      workspace,
      "tsconfig.json",
      JSON.stringify({ compilerOptions: { strict: true, lib: ["ES2022"], types: [] }, include: ["src"] }),
    );
    write(tenant, workspace, "src/index.ts", `export class Widget${name} {}\n\nexport function makeWidget() {}\n`);
  }
  write("globex", "shop", "src/secret.ts", "export const globexSecretPricing = 42;\n");
  const tenancy = writeTenancyFiles(root, {
    tenants: { acme: { workspaces: ["web", "api"] }, globex: { workspaces: ["shop"] } },
    keys: { acme: { tenant: "acme" }, globex: { tenant: "globex" } },
  });
  tokens = tenancy.tokens;
  // NATS with the authorization lspmesh ships: every process as its own identity.
  nats = await startNatsServer({ secured: { tenants: ["acme", "globex"] } });
  nc = await connect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.admin) });
  runner = await startRunnerProcess(workspaces, nats, RUNNER_ID);
  gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy });
  await waitFor("the runner in the gateway's registry", async () => (await gateway.liveRunners()) === 1);
}, 60_000);

afterAll(async () => {
  for (const mcp of clients) await mcp.close().catch(() => {});
  await gateway?.stop();
  await runner?.kill();
  await nc?.close();
  await nats?.[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

test.runIf(isFaultsTier())(
  "a search never returns or loads the other tenant's index",
  async () => {
    // globex's workspace is indexed (any request naming a workspace starts its index), but no
    // globex search ever runs: its index exists in NATS and the gateway never needs it.
    const globex = await client(tokens.globex);
    expect((await call(globex, "document_symbols", { file: "src/index.ts" })).isError).toBeFalsy();
    await waitFor("globex's index", async () => (await storedMeta("globex", "shop"))?.state === "ready");

    const acme = await client(tokens.acme);
    // The first search asks acme's workspaces live (no index yet) and so starts their indexes.
    const complete = await waitFor(
      "acme's complete search from its indexes",
      async () => {
        const result = await call(acme, "search_symbols", { query: "Widget" });
        return result.structuredContent?.partial === false && result;
      },
      { timeoutMs: 90_000 },
    );
    const symbols = complete.structuredContent.symbols as Found[];
    expect(new Set(symbols.map((s) => s.workspace))).toEqual(new Set(["web", "api"]));
    expect(symbols.map((s) => s.name)).not.toContain("WidgetShop");
    expect(complete.structuredContent.workspaces.map((w: { source: string }) => w.source)).toEqual(["index", "index"]);
    const secret = await call(acme, "search_symbols", { query: "globexSecretPricing" });
    expect(secret.structuredContent.symbols).toEqual([]);
    expect(secret.structuredContent.text_matches).toEqual([]);
    expect(JSON.stringify(secret)).not.toContain("shop");
    const named = await call(acme, "search_symbols", { query: "Widget", workspaces: ["shop"] });
    expect(named.isError).toBe(true);

    // The gateway follows acme's bucket (a consumer on its stream) and never opened globex's.
    const consumers = async (tenant: string) => (await (await kv(tenant)).status()).streamInfo.state.consumer_count;
    expect(await consumers("acme")).toBeGreaterThan(0);
    expect(await consumers("globex")).toBe(0);

    // NATS itself keeps tenants apart: a tenant's own reader opens its bucket, never another's.
    const reader = await connect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.ci("acme")) });
    try {
      expect((await (await new Kvm(reader).open(symbolIndexBucket("acme"))).status()).values).toBeGreaterThan(0);
      await expect(
        (async () => (await new Kvm(reader).open(symbolIndexBucket("globex"))).status())(),
      ).rejects.toThrow();
    } finally {
      await reader.close();
    }

    // globex's own search finds its symbols, and only its own.
    const own = await call(globex, "search_symbols", { query: "Widget" });
    expect((own.structuredContent.symbols as Found[]).map((s) => `${s.workspace}:${s.name}`)).toEqual([
      "shop:WidgetShop",
      "shop:makeWidget",
    ]);
  },
  120_000,
);

// A runner killed and restarted: a fault scenario, in the faults tier (npm run test:faults).
test.runIf(isFaultsTier())(
  "with its runner killed, a workspace's symbols are still found; restarted, the runner catches up",
  async () => {
    const acme = await client(tokens.acme);
    const index = await kv("acme");
    const untouchedKey = symbolIndexFileKey("web", "src/index.ts");
    const untouchedRevision = (await index.get(untouchedKey))?.revision;
    const before = await storedMeta("acme", "web");
    expect(before?.state).toBe("ready");

    await runner.kill();
    const served = await call(acme, "search_symbols", { query: "WidgetWeb" });
    expect(served.structuredContent.partial).toBe(false);
    expect(served.structuredContent.symbols[0]).toMatchObject({
      workspace: "web",
      name: "WidgetWeb",
      location: { file: "src/index.ts", line: 1, column: 14 },
    });

    // Written while no runner watches: the restarted runner finds it from the stored index's files.
    write("acme", "web", "src/late.ts", "export class AddedWhileAway {}\n");
    runner = await startRunnerProcess(workspaces, nats, RUNNER_ID);
    const caughtUp = await waitFor(
      "the file written while the runner was away to be indexed",
      async () => {
        const result = await call(acme, "search_symbols", { query: "AddedWhileAway" });
        return result.structuredContent?.symbols?.[0]?.name === "AddedWhileAway" && result;
      },
      { timeoutMs: 60_000 },
    );
    expect(caughtUp.structuredContent.symbols[0]!.location.file).toBe("src/late.ts");
    const after = await waitFor("caught up", async () => {
      const meta = await storedMeta("acme", "web");
      return meta?.state === "ready" && meta;
    });
    expect(after!.epoch).toBeGreaterThan(before!.epoch);
    // Caught up, not rebuilt: the file that did not change was not written again.
    expect((await index.get(untouchedKey))?.revision).toBe(untouchedRevision);
  },
  120_000,
);
