// A runner rolled under load in the deployment (npm run test:deploy): the local overlay under podman
// with two TypeScript runners as the StatefulSet's pods (src/rolloutDeployment.ts) and the shipped
// drain settings (LSPMESH_DRAIN_MS 45 s; SIGTERM, SIGKILL after the 60 s grace period). The runner
// owning acme/web holds it warm; under a stream of find_definition calls through the gateway it
// gets SIGTERM, then starts again with the same id (its pod replaced). Printed and checked, once
// without handoff (LSPMESH_HANDOFF=0, a deployment of its own) and once with it: failed calls (none
// either way) and cold answers (calls that waited for a language server to start: none with it).
import { needs, type StreamSummary, startCallStream, summarizeStream, waitFor } from "@lspmesh/test-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, test } from "vitest";
import { type RolloutDeployment, startRolloutDeployment } from "../src/rolloutDeployment.js";

const KEY = { tenant: "acme", workspace: "web", language: "typescript" };
const CALL = { workspace: "web", file: "src/main.ts", symbol: "PoliteGreeter", line: 3 };
/** The runner pods' terminationGracePeriodSeconds (pools/typescript/runner.yaml). */
const GRACE_SECONDS = 60;
const STEADY_MS = 2_000;
const TAIL_MS = 3_000;
/**
 * Pause of each of the two call lanes between calls, ms: overlays/local/control.json limits acme
 * to 50 calls a second, and a warm answer takes 10–30 ms here.
 */
const PAUSE_MS = 60;

type ToolResult = { isError?: boolean; content: Array<{ text?: string }> };
type Figures = StreamSummary & { drainMs?: number };

const results: Array<[string, Figures]> = [];
let open: RolloutDeployment | undefined;

const text = (result: ToolResult) => result.content.map((part) => part.text ?? "").join("\n");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function findDefinition(client: Client): () => Promise<true | string> {
  return async () => {
    const result = (await client.callTool({ name: "find_definition", arguments: CALL }, undefined, {
      timeout: 120_000,
    })) as ToolResult;
    return !result.isError && text(result).includes("src/greeter.ts:7:14") ? true : text(result);
  };
}

/** The owner of acme/web out (SIGTERM) and back (started again) under the call stream. */
async function rollOut(rollout: RolloutDeployment, handoff: boolean): Promise<{ out: Figures; back: Figures }> {
  const { owner, other } = rollout;
  const call = findDefinition(await rollout.deployment.mcpClient("rollout-test"));
  const both = async () => (await rollout.live(owner)) && rollout.live(other);
  await waitFor("both runners registered", both, { timeoutMs: 180_000, intervalMs: 500 });
  await waitFor("find_definition answered", async () => (await call()) === true, {
    timeoutMs: 180_000,
    intervalMs: 1_000,
  });
  // A gateway that had not yet heard of the owner sent the first call to the other runner, which
  // now holds a warm server: restarted, it is cold again, as the measurement without handoff needs
  // (seen: the steady state then waited for the owner's cold start, and nothing was cold after).
  if (await rollout.startedServerFor(other, KEY.tenant, KEY.workspace)) {
    await rollout.restart(other);
    await waitFor("both runners registered again", both, { timeoutMs: 180_000, intervalMs: 500 });
  }
  // Answered by the owner, warm (a call through the gateway after the other runner's restart).
  await waitFor(
    "the owner answers warm",
    async () => {
      const started = Date.now();
      return (await call()) === true && Date.now() - started < 1_000;
    },
    { timeoutMs: 180_000, intervalMs: 1_000 },
  );
  if (await rollout.startedServerFor(other, KEY.tenant, KEY.workspace))
    throw new Error("the other runner still answers the owner's workspace: the rollout would start warm");
  // The owner lists its warm sessions at its next heartbeats (5 s); without handoff it lists none.
  if (handoff) {
    const listed = async () => Boolean((await rollout.entry(owner))?.warm?.includes("acme/web/typescript"));
    await waitFor("the owner lists acme/web warm", listed, { timeoutMs: 30_000, intervalMs: 500 });
  } else await sleep(6_000);
  const stream = startCallStream(call, { concurrency: 2, pauseMs: PAUSE_MS });
  await sleep(STEADY_MS);
  const from = stream.now();
  await rollout.stop(owner, GRACE_SECONDS);
  const drainMs = Math.round(stream.now() - from);
  await sleep(TAIL_MS);
  const returned = stream.now();
  await rollout.start(owner);
  await waitFor("the owner registered again", () => rollout.live(owner), { timeoutMs: 180_000, intervalMs: 250 });
  await sleep(TAIL_MS);
  const samples = await stream.stop();
  const steadyAndBack = samples.filter((sample) => sample.at < from || sample.at >= returned);
  return {
    out: { ...summarizeStream(samples, from, { until: returned }), drainMs },
    back: summarizeStream(steadyAndBack, returned),
  };
}

/** One deployment, one rollout; its figures kept under `name`. */
async function measure(name: string, handoff: boolean): Promise<void> {
  open = await startRolloutDeployment(KEY, { LSPMESH_HANDOFF: handoff ? "1" : "0" });
  try {
    const { out, back } = await rollOut(open, handoff);
    results.push([`${name}: out`, out], [`${name}: back`, back]);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${await open.deployment.logs(40)}`);
  } finally {
    await open.close();
  }
}

function report(): void {
  const row = ([name, s]: [string, Figures]) =>
    `${name.padEnd(10)} calls ${String(s.calls).padStart(4)}  failed ${s.failed}  cold ${s.cold} (>${s.coldThresholdMs} ms)  median ${s.medianMs} ms  max ${s.maxMs} ms  steady ${s.steadyMedianMs} ms${s.drainMs === undefined ? "" : `  drain ${s.drainMs} ms`}${s.failed ? `  ${JSON.stringify(s.failures)}` : ""}`;
  console.log(`runner rollout under find_definition calls (podman, local overlay)\n${results.map(row).join("\n")}`);
}

describe.skipIf(!needs("podman", "the runner rollout (test:deploy)"))("a runner rolled under load, podman", () => {
  afterAll(async () => {
    await open?.close();
  }, 180_000);

  test("no call fails either way; with handoff none waits for a cold server, out or back", async () => {
    try {
      await measure("off", false);
      await measure("on", true);
    } finally {
      report();
    }
    for (const [name, figures] of results) expect(figures.errors, name).toEqual([]);
    const figures = Object.fromEntries(results);
    expect(figures["off: out"]!.cold).toBeGreaterThan(0);
    expect(figures["on: out"]!.cold).toBe(0);
    expect(figures["on: back"]!.cold).toBe(0);
  }, 3_600_000);
});
