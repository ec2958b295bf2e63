// A loopback cluster for fault cases: nats-server, `lspmesh runner`s that register themselves,
// one `lspmesh gateway` with tenant acme (workspaces web and api, the TypeScript fixture), MCP
// clients with acme's API key, and a hover load whose every answer is checked.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export const TENANT = "acme";
export const WORKSPACES = ["web", "api"];

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

export interface LoadRecord {
  workspace: string;
  start: number;
  end: number;
  ok: boolean;
  text: string;
}

export interface LoopbackCluster {
  readonly nats: NatsServer;
  readonly runners: RunnerProcess[];
  readonly gateway: GatewayProcess;
  readonly clients: Client[];
  /** Folder holding <tenant>/<workspace>. */
  readonly workspaces: string;
  call(client: Client, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string }>;
  liveRunners(): Promise<number>;
  readyz(): Promise<{ status: number; body: string }>;
  startRunner(id: string): Promise<RunnerProcess>;
  /** Every client hovering in a loop over the workspaces until the returned stop() is called. */
  hoverLoad(): { records: LoadRecord[]; stop(): Promise<void> };
  close(): Promise<void>;
}

/** `heartbeatMs`: the runners' registry heartbeat (default the kit's HEARTBEAT_MS). */
export async function startLoopbackCluster(
  runnerIds: string[],
  callers = 4,
  heartbeatMs?: number,
): Promise<LoopbackCluster> {
  const root = mkdtempSync(join(tmpdir(), "lspmesh-faults-"));
  const workspaces = join(root, "workspaces");
  for (const workspace of WORKSPACES) {
    mkdirSync(join(workspaces, TENANT), { recursive: true });
    cpSync(fixturePath("typescript-basic"), join(workspaces, TENANT, workspace), { recursive: true });
  }
  // The load is closed loops on remembered hovers (~1 ms each): four callers pass 1 000 calls per
  // second at times, and RATE_LIMITED is not what these cases measure (the limiter has its own tests).
  const tenancy = writeTenancyFiles(root, {
    tenants: { [TENANT]: { workspaces: WORKSPACES, limits: { callsPerSecond: 100_000 } } },
    keys: { "acme-agent": { tenant: TENANT } },
  });
  const runners: RunnerProcess[] = [];
  const clients: Client[] = [];
  let nats: NatsServer | undefined;
  let gateway: GatewayProcess | undefined;
  const close = async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await gateway?.stop();
    await Promise.all(runners.map((runner) => runner.stop()));
    await nats?.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    // NATS with the shipped authorization: runners, the gateway and the tenant each as themselves.
    nats = await startNatsServer({ secured: { tenants: [TENANT] } });
    const natsUrl = nats;
    runners.push(
      ...(await Promise.all(runnerIds.map((id) => startRunnerProcess(workspaces, natsUrl, id, { heartbeatMs })))),
    );
    gateway = await startGatewayProcess({ natsUrl, ...tenancy });
    const at = gateway;
    await waitFor(`${runnerIds.length} live runners`, async () => (await at.liveRunners()) === runnerIds.length);
    for (let i = 0; i < callers; i++) {
      const client = new Client({ name: `faults-${i}`, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", at.url), {
          requestInit: { headers: { authorization: `Bearer ${tenancy.tokens["acme-agent"]}` } },
        }),
      );
      clients.push(client);
    }
    const call = async (client: Client, name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      return { ok: !result.isError, text: result.content.map((part) => part.text ?? "").join("\n") };
    };
    const hover = async (client: Client, workspace: string): Promise<LoadRecord> => {
      const start = Date.now();
      const answer = await call(client, "hover", { workspace, file: "src/main.ts", symbol: "PoliteGreeter", line: 3 });
      const ok = answer.ok && answer.text.includes("PoliteGreeter");
      return { workspace, start, end: Date.now(), ok, text: answer.text.slice(0, 300) };
    };
    for (const workspace of WORKSPACES) {
      const first = await hover(clients[0]!, workspace);
      if (!first.ok) throw new Error(`hover before the fault failed: ${first.text}`);
    }
    return {
      nats,
      runners,
      gateway,
      clients,
      workspaces,
      call,
      liveRunners: () => at.liveRunners(),
      readyz: async () => {
        const response = await fetch(new URL("/readyz", at.url));
        return { status: response.status, body: await response.text() };
      },
      startRunner: async (id) => {
        const runner = await startRunnerProcess(workspaces, natsUrl, id, { heartbeatMs });
        runners.push(runner);
        return runner;
      },
      hoverLoad() {
        const records: LoadRecord[] = [];
        let running = true;
        const loops = clients.map(async (client, index) => {
          for (let n = 0; running; n++) records.push(await hover(client, WORKSPACES[(index + n) % WORKSPACES.length]!));
        });
        return {
          records,
          stop: async () => {
            running = false;
            await Promise.all(loops);
          },
        };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
