// Answers remembered at the gateway are never stale. nats-server (secured), one `lspmesh runner`,
// two `lspmesh gateway`s, every part a real process. A read asked twice is answered by the gateway
// the second time; a file changed between two identical reads — through an edit sent to the other
// gateway, on disk behind lspmesh's back, or announced by a writer on `lspmesh.fs` — is never
// answered from before the change once the change is complete.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { epochWildcard, fileEventsSubject, NATS_USERS } from "@lspmesh/events";
import {
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
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

const SHAPE = "src/shape.ts";
const USE = "src/use.ts";
/** `size` in `export const size: Size = 1;`, line 2 of src/use.ts: its hover names Size's type. */
const AT_SIZE = { workspace: "web", file: USE, line: 2, column: 14 };

let root: string;
let workspace: string;
let nats: NatsServer;
let runner: RunnerProcess;
const gateways: GatewayProcess[] = [];
const clients: Client[] = [];
let admin: NatsConnection;
let writer: NatsConnection;
let sizeType = "number";

async function mcp(gateway: GatewayProcess, token: string): Promise<Client> {
  const client = new Client({ name: "answer-cache-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  clients.push(client);
  return client;
}

async function hover(client: Client): Promise<string> {
  const result = (await client.callTool({ name: "hover", arguments: AT_SIZE })) as ToolResult;
  const text = result.content.map((part) => part.text ?? "").join("\n");
  if (result.isError) throw new Error(`hover failed: ${text}`);
  return text;
}

/** The hover of `size` says its type alias is `type`. */
function says(text: string, type: string): boolean {
  return text.includes(`const size: ${type}`) || text.includes(`type Size = ${type}`);
}

function shapeSource(type: string): string {
  return `export type Size = ${type};\n`;
}

async function hits(gateway: GatewayProcess): Promise<number> {
  const match = /lspmesh_gateway_answer_cache_total\{result="hit"\} (\d+)/.exec(await gateway.metrics());
  return Number(match?.[1] ?? 0);
}

/** The next epoch announcement for acme/web (as a gateway hears them). */
function nextAnnouncement(): Promise<void> {
  return new Promise((resolve) => {
    const subscription = admin.subscribe(epochWildcard("acme"), {
      max: 1,
      callback: () => resolve(),
    });
    void subscription;
  });
}

let clientA: Client;
let clientB: Client;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-answer-cache-"));
  const workspaces = join(root, "workspaces");
  workspace = join(workspaces, "acme", "web");
  mkdirSync(join(workspace, "src"), { recursive: true });
  writeFileSync(
    join(workspace, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, lib: ["ES2022"], types: [] }, include: ["src"] }),
  );
  writeFileSync(join(workspace, SHAPE), shapeSource(sizeType));
  writeFileSync(join(workspace, USE), `import type { Size } from "./shape";\nexport const size: Size = 1;\n`);
  const tenancy = writeTenancyFiles(root, {
    tenants: { acme: { workspaces: ["web"], limits: { callsPerSecond: 1000, concurrentCalls: 64 } } },
    keys: { acme: { tenant: "acme", scopes: ["lsp:read", "lsp:write"] } },
  });
  nats = await startNatsServer({ secured: { tenants: ["acme"] } });
  runner = await startRunnerProcess(workspaces, nats, "runner-cache");
  for (const _ of [0, 1]) gateways.push(await startGatewayProcess({ natsUrl: nats, ...tenancy }));
  for (const gateway of gateways) await waitFor("the runner live", async () => (await gateway.liveRunners()) === 1);
  admin = await connect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.admin) });
  writer = await connect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.writer("acme")) });
  clientA = await mcp(gateways[0]!, tenancy.tokens.acme);
  clientB = await mcp(gateways[1]!, tenancy.tokens.acme);
  // The project loaded and answering in full (an answer from a loading server is never remembered).
  await waitFor("a complete hover", async () => says(await hover(clientA), "number"), { timeoutMs: 90_000 });
}, 150_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await admin?.close();
  await writer?.close();
  for (const gateway of gateways) await gateway.stop();
  await runner?.stop();
  await nats?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("answers remembered at the gateway", () => {
  test("a repeated read is answered by the gateway, with the language server's answer", async () => {
    const first = await hover(clientA);
    const before = await hits(gateways[0]!);
    const again = await hover(clientA);
    expect(again).toBe(first);
    expect(await hits(gateways[0]!)).toBe(before + 1);
  });

  test("an edit sent to the other gateway is seen by the next read, every time", async () => {
    for (const type of ["string", "boolean", "bigint", "number"]) {
      await hover(clientA); // remembered at gateway A
      await hover(clientA);
      const line = shapeSource(sizeType).trimEnd();
      const edit = (await clientB.callTool({
        name: "apply_workspace_edit",
        arguments: {
          workspace: "web",
          edit: {
            files: [
              {
                file: SHAPE,
                edits: [
                  {
                    line: 1,
                    column: 1,
                    end_line: 1,
                    end_column: line.length + 1,
                    new_text: shapeSource(type).trimEnd(),
                  },
                ],
              },
            ],
          },
        },
      })) as ToolResult;
      expect(edit.isError, JSON.stringify(edit.content)).toBeFalsy();
      sizeType = type;
      const after = await hover(clientA);
      expect(says(after, type), `after the edit to ${type}: ${after}`).toBe(true);
    }
  });

  test("a file written on disk behind lspmesh's back: fresh once the runner saw it, and never stale after", async () => {
    for (const type of ["string", "number"]) {
      await hover(clientA);
      await hover(clientA);
      const announced = nextAnnouncement();
      writeFileSync(join(workspace, SHAPE), shapeSource(type));
      sizeType = type;
      await announced;
      // The runner's watcher saw the write and announced it: no gateway answers from before it.
      for (const client of [clientA, clientB]) {
        const text = await hover(client);
        expect(says(text, type), `after writing ${type}: ${text}`).toBe(true);
      }
    }
  });

  test("a writer's announcement on lspmesh.fs: the next read after the reply is fresh", async () => {
    for (const type of ["boolean", "number"]) {
      await hover(clientA);
      await hover(clientB);
      writeFileSync(join(workspace, SHAPE), shapeSource(type));
      sizeType = type;
      await writer.request(
        fileEventsSubject("acme", "web"),
        JSON.stringify({ v: 1, changes: [{ file: SHAPE, kind: "changed" }] }),
        { timeout: 10_000 },
      );
      for (const client of [clientA, clientB]) {
        const text = await hover(client);
        expect(says(text, type), `after announcing ${type}: ${text}`).toBe(true);
      }
    }
  });
});
