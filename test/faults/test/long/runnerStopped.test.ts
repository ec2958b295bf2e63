// A runner stopped with SIGSTOP for 10 s under load (two runners, 4 callers over two workspaces),
// then continued. Its process and its sockets stay, so callers routed to it wait; the promise is
// that no call outlives the gateway's deadline, that every call answered is correct, and that
// all calls are correct again within seconds of SIGCONT, with nothing left behind.
import { waitFor } from "@lspmesh/test-kit";
import { expect, test } from "vitest";
import { startLoopbackCluster } from "../../src/loopbackCluster.js";

/** The gateway's deadline for a tool call (LSPMESH_CALL_TIMEOUT_MS default), in ms. */
const GATEWAY_DEADLINE_MS = 30_000;
const STOP_MS = 10_000;

test("a runner stopped for 10 s: no call outlives the deadline, correct again within 5 s of SIGCONT", async () => {
  const cluster = await startLoopbackCluster(["runner-1", "runner-2"]);
  try {
    const load = cluster.hoverLoad();
    // The load is on: every caller has had an answer.
    await waitFor("answers under load", () => load.records.length >= cluster.clients.length);
    const victim = cluster.runners[0]!;
    const stoppedAt = Date.now();
    process.kill(victim.pid, "SIGSTOP");
    // The fault itself: the runner stays stopped this long.
    await new Promise((resolve) => setTimeout(resolve, STOP_MS));
    process.kill(victim.pid, "SIGCONT");
    const continuedAt = Date.now();
    // Calls must be correct from 5 s after SIGCONT on: 5 s more of load are watched for that.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    await load.stop();

    const records = load.records;
    const failures = records.filter((record) => !record.ok);
    const slowest = Math.max(...records.map((record) => record.end - record.start));
    const afterResume = records.filter((record) => record.start > continuedAt + 5_000);
    console.log(
      JSON.stringify({
        calls: records.length,
        failures: failures.length,
        failureCodes: [...new Set(failures.map((failure) => failure.text.split(":")[0]))],
        slowestMs: slowest,
        duringStop: records.filter((record) => record.start >= stoppedAt && record.start < continuedAt).length,
      }),
    );
    expect(slowest).toBeLessThan(GATEWAY_DEADLINE_MS + 2_000);
    for (const failure of failures) expect(failure.text).toMatch(/^(TIMEOUT|UNAVAILABLE): /);
    expect(afterResume.length).toBeGreaterThan(0);
    expect(afterResume.filter((record) => !record.ok)).toEqual([]);
  } finally {
    await cluster.close();
  }
}, 120_000);
