// A NATS server lost under load, in the deployment (npm run test:deploy): the local overlay under
// podman (src/localDeployment.ts: three NATS servers, streams and buckets of three replicas, a
// gateway and a runner given all three servers). Three MCP clients call find_definition and hover
// through the gateway without pause, `lspmesh diagnostics --watch` follows acme/web with a CI
// credential, and files are written one after another, each with its own type error, each asked
// for with the diagnostics tool (so the runner publishes it). After the first few, the NATS server
// leading the diagnostics stream, made the one holding the runner's connection (leader stepped
// down until it is), is killed (`podman pod kill`). Printed and checked: no call
// failed, and every file's diagnostics reached the watcher. Then the killed server is started
// again and catches up.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DIAGNOSTICS_STREAM, type DiagnosticsMessage } from "@lspmesh/events";
import { needs, waitFor } from "@lspmesh/test-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type LocalDeployment, type NatsPod, startLocalDeployment } from "../src/localDeployment.js";
import { lspmesh } from "../src/localInstall.js";
import { podman } from "../src/podman.js";
import { repoPath } from "../src/repo.js";

const CALLERS = 3;
/** Files written, each with one type error; the server is killed after KILL_AFTER of them. */
const EDITS = 9;
const KILL_AFTER = 3;
/** Calls go on at least this long after the kill, ms. */
const AFTER_KILL_MS = 15_000;
/**
 * Between two calls of one caller, ms: overlays/local/control.json limits acme to 50 calls a
 * second, and the gateway answers a repeated question from memory in about a millisecond, so the
 * three callers stay at most 30 a second (the edits' calls come on top).
 */
const PAUSE_MS = 100;
const DEFINITION = { workspace: "web", file: "src/main.ts", symbol: "PoliteGreeter", line: 3 };

type ToolResult = { isError?: boolean; content: Array<{ text?: string }> };

let deployment: LocalDeployment | undefined;
let nc: NatsConnection | undefined;
let watcher: DiagnosticsWatcher | undefined;
/** The NATS server killed by the first test, started again by the second. */
let killed: NatsPod | undefined;

const text = (result: ToolResult) => result.content.map((part) => part.text ?? "").join("\n");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const editedFile = (k: number) => `src/failover/f${k}.ts`;
/** The name file k leaves undefined: its type error says "Cannot find name 'failover<k>'". */
const marker = (k: number) => `failover${k}`;

/** `lspmesh diagnostics --watch --format json`: every message it printed, until close(). */
interface DiagnosticsWatcher {
  readonly messages: DiagnosticsMessage[];
  readonly output: () => string;
  close(): Promise<void>;
}

function watchDiagnostics(args: readonly string[]): DiagnosticsWatcher {
  const child: ChildProcess = spawn(process.execPath, [repoPath("apps/cli/bin/lspmesh.js"), "diagnostics", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const messages: DiagnosticsMessage[] = [];
  let rest = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop()!;
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line) as DiagnosticsMessage);
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  let closing: Promise<void> | undefined;
  return {
    messages,
    output: () => stderr.slice(-2000),
    close() {
      closing ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** Calls find_definition and hover in turn, PAUSE_MS apart, until stopped; counts answers and failures (with why). */
function callInLoop(client: Client, stop: () => boolean) {
  const tally = { ok: 0, failed: 0, failures: [] as string[] };
  const done = (async () => {
    for (let i = 0; !stop(); i++, await sleep(PAUSE_MS)) {
      const name = i % 2 === 0 ? "find_definition" : "hover";
      try {
        const result = (await client.callTool({ name, arguments: DEFINITION }, undefined, {
          timeout: 60_000,
        })) as ToolResult;
        const good = !result.isError && (name === "hover" || text(result).includes("src/greeter.ts:7:14"));
        if (good) tally.ok++;
        else {
          tally.failed++;
          tally.failures.push(`${name}: ${text(result).slice(0, 200)}`);
        }
      } catch (error) {
        tally.failed++;
        tally.failures.push(`${name}: ${String(error).slice(0, 200)}`);
      }
    }
  })();
  return { tally, done };
}

/** Writes file k (one type error) in the workspaces volume and asks for its diagnostics. */
async function edit(client: Client, k: number): Promise<void> {
  const path = deployment!.workspaceFile("acme/web", editedFile(k));
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  writeFileSync(path, `export const n${k}: number = ${marker(k)};\n`, { mode: 0o644 });
  const result = (await client.callTool(
    { name: "diagnostics", arguments: { workspace: "web", files: [editedFile(k)], wait_ms: 30_000 } },
    undefined,
    { timeout: 60_000 },
  )) as ToolResult;
  if (result.isError || !text(result).includes(`'${marker(k)}'`))
    throw new Error(`diagnostics of ${editedFile(k)}: ${text(result).slice(0, 300)}`);
}

/** The files whose diagnostics (with their own error) the watcher printed. */
function arrived(): Set<number> {
  const seen = new Set<number>();
  for (const message of watcher!.messages) {
    const k = Number(/^src\/failover\/f(\d+)\.ts$/.exec(message.file)?.[1] ?? Number.NaN);
    if (message.diagnostics.some((d) => d.message.includes(`'${marker(k)}'`))) seen.add(k);
  }
  return seen;
}

/** The NATS server holding the connection named `name` (GET /connz on each server's monitoring port). */
async function serverHolding(name: string): Promise<NatsPod> {
  return waitFor(`the NATS server holding ${name}'s connection`, async () => {
    for (const server of deployment!.nats) {
      const monitor = new URL("/connz", server.url.replace("nats://", "http://").replace(":4222", ":8222"));
      const connz = (await (await fetch(monitor)).json()) as { connections?: Array<{ name?: string }> };
      if (connz.connections?.some((connection) => connection.name === name)) return server;
    }
    return undefined;
  });
}

/** Steps LSPMESH_DIAG's leader down until `target` leads it (each time a random peer is elected). */
async function moveLeader(jsm: JetStreamManager, target: string): Promise<void> {
  for (let step = 0; step < 12 && (await streamLeader(jsm)) !== target; step++) {
    await nc!
      .request(`$JS.API.STREAM.LEADER.STEPDOWN.${DIAGNOSTICS_STREAM}`, undefined, { timeout: 5_000 })
      .catch(() => {});
    await sleep(1_000);
  }
}

async function streamLeader(jsm: JetStreamManager): Promise<string> {
  return waitFor("a leader of LSPMESH_DIAG", async () => (await jsm.streams.info(DIAGNOSTICS_STREAM)).cluster?.leader, {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
}

describe.skipIf(!needs("podman", "the NATS failover (test:deploy)"))("a NATS server lost under load", () => {
  let jsm: JetStreamManager;

  beforeAll(async () => {
    deployment = await startLocalDeployment({ runners: 1 });
    const creds = readFileSync(deployment.adminCreds, "utf8");
    nc = await connect({
      servers: deployment.nats.map((server) => server.url),
      authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
      maxReconnectAttempts: -1,
    });
    jsm = await jetstreamManager(nc);
    // A CI credential for acme, as docs/events.md has `lspmesh diagnostics --watch` use.
    const ci = join(deployment.trust, "..", "ci-acme.creds");
    await lspmesh(
      "admin",
      "creds",
      "ci",
      "acme",
      "--out",
      ci,
      "--nats-trust",
      deployment.trust,
      ...deployment.adminArgs,
    );
    watcher = watchDiagnostics([
      "--watch",
      ...["--format", "json", "--tenant", "acme", "--workspace", "web"],
      ...["--nats", deployment.natsUrl, "--nats-creds", ci],
    ]);
  }, 900_000);

  afterAll(async () => {
    await watcher?.close();
    await nc?.close();
    await deployment?.close();
  }, 120_000);

  test("killing the stream's leader fails no call and loses no diagnostics", async () => {
    const clients = await Promise.all([...Array(CALLERS + 1).keys()].map((n) => deployment!.mcpClient(`caller-${n}`)));
    const editor = clients.pop()!;
    // Warm: the runner registered and its language server up.
    await waitFor(
      "a first answer",
      async () => !((await editor.callTool({ name: "find_definition", arguments: DEFINITION })) as ToolResult).isError,
      {
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    let stop = false;
    const loops = clients.map((client) => callInLoop(client, () => stop));
    // The worst case: the server leading the stream also holds the runner's connection.
    const runnerServer = await serverHolding(deployment!.runnerIds[0]!);
    await moveLeader(jsm, runnerServer.name);
    const leader = await streamLeader(jsm);
    const gatewayServer = await serverHolding("lspmesh-gateway");
    const victim = deployment!.nats.find((server) => server.name === leader)!;
    killed = victim;
    console.log(
      `runner on ${runnerServer.name}, gateway registry on ${gatewayServer.name}, ${DIAGNOSTICS_STREAM} led by ${leader}`,
    );
    let killedAt = 0;
    let all: number | undefined;
    let newLeader: string;
    try {
      for (let k = 0; k < EDITS; k++) {
        if (k === KILL_AFTER) {
          killedAt = Date.now();
          await podman("pod", "kill", victim.pod);
          console.log(`killed ${victim.pod} (leader of ${DIAGNOSTICS_STREAM}) after ${k} edits`);
        }
        await edit(editor, k);
      }
      all = await waitFor("every file's diagnostics at the watcher", () => arrived().size === EDITS && Date.now(), {
        timeoutMs: 90_000,
        intervalMs: 250,
      }).catch(() => undefined);
      newLeader = await streamLeader(jsm);
      await sleep(Math.max(0, killedAt + AFTER_KILL_MS - Date.now()));
    } finally {
      // Also when a step failed: no caller may go on once the deployment is taken down.
      stop = true;
      await Promise.all(loops.map((loop) => loop.done));
    }
    const ok = loops.reduce((sum, loop) => sum + loop.tally.ok, 0);
    const failed = loops.reduce((sum, loop) => sum + loop.tally.failed, 0);
    const lost = [...Array(EDITS).keys()].filter((k) => !arrived().has(k));
    console.log(
      `NATS failover: killed ${leader}, new leader ${newLeader}; calls ${ok} answered, ${failed} failed; ` +
        `diagnostics ${EDITS - lost.length}/${EDITS} arrived at the watcher (${watcher!.messages.length} messages), ${lost.length} lost` +
        (all ? `, the last ${((all - killedAt) / 1000).toFixed(1)} s after the kill` : ""),
    );
    expect(newLeader).not.toBe(leader);
    expect(loops.flatMap((loop) => loop.tally.failures)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    // Lost diagnostics: the watcher's output and the pods' logs say which side stopped (the runner's
    // outbox logs "diagnostics dropped after repeated failures"; the watcher its reconnects).
    const evidence = lost.length > 0 ? `${watcher!.output()}\n${await deployment!.logs(200)}` : "";
    expect(lost, evidence).toEqual([]);
  }, 300_000);

  test("the killed server starts again and catches up: three current replicas", async () => {
    expect(killed).toBeDefined();
    await podman("pod", "start", killed!.pod);
    await waitFor(
      "three current replicas of LSPMESH_DIAG",
      async () => {
        const cluster = (await jsm.streams.info(DIAGNOSTICS_STREAM)).cluster;
        return cluster?.leader !== undefined && cluster.replicas?.filter((r) => r.current).length === 2;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
  }, 180_000);
});
