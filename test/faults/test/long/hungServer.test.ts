// A hung language server under load, through `lspmesh serve` and the official MCP client: the
// semantic tsserver of the session is stopped with SIGSTOP (what a wedged process looks like to
// its callers) while four callers keep asking. The calls caught by it fail with TIMEOUT well
// before the gateway's deadline, correct answers come back within 15 s without anyone acting,
// and SIGCONT afterwards finds the stopped process gone, with exactly one server in its place.
import {
  commandLine,
  descendantPids,
  type FixtureWorkspace,
  fixtureWorkspace,
  isRunning,
  startServe,
  waitFor,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, expect, test } from "vitest";

/** The gateway's deadline for a tool call (LSPMESH_CALL_TIMEOUT_MS default), in ms. */
const GATEWAY_DEADLINE_MS = 30_000;
/** Promised time from the stop to correct answers again, in ms. */
const RECOVERY_MS = 15_000;
const CALLERS = 4;
/** How long answers must stay correct after the recovery, in ms: one scan of the runner's process watch (2 s). */
const STEADY_MS = 2_000;

interface Call {
  start: number;
  end: number;
  ok: boolean;
  text: string;
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

let fixture: FixtureWorkspace;
beforeEach(() => {
  fixture = fixtureWorkspace("typescript-basic");
});
afterEach(() => fixture[Symbol.dispose]());

/** tsserver processes below `pid`; the semantic one is started without --serverMode. */
function tsservers(pid: number): Array<{ pid: number; semantic: boolean }> {
  return descendantPids(pid)
    .map((child) => ({ pid: child, line: commandLine(child) }))
    .filter(({ line }) => /tsserver(\.js)?\b/.test(line) && !line.includes("typescript-language-server"))
    .map(({ pid: child, line }) => ({ pid: child, semantic: !line.includes("--serverMode") }));
}

/** The process to stop: tsserver (the engine) or typescript-language-server (the wrapper, group leader). */
function target(servePid: number, which: "tsserver" | "wrapper"): number | undefined {
  if (which === "tsserver") return tsservers(servePid).find((server) => server.semantic)?.pid;
  return descendantPids(servePid).find((pid) => commandLine(pid).includes("typescript-language-server"));
}

test.each(["tsserver", "wrapper"] as const)(
  "SIGSTOP of the %s under load: TIMEOUT before the deadline, correct again within 15 s, nothing left behind",
  async (which) => {
    // The callers repeat one question: the answer cache would answer them without the server, so
    // the hang would go unseen by them (the process watch still kills a stopped server in 2–4 s).
    await using serve = await startServe(fixture.dir, [], { env: { LSPMESH_ANSWER_CACHE: "0" } });
    const clients = await Promise.all(
      Array.from({ length: CALLERS }, async (_, i) => {
        const client = new Client({ name: `faults-${i}`, version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(serve.url));
        return client;
      }),
    );
    try {
      const hover = async (client: Client): Promise<Call> => {
        const start = Date.now();
        const result = (await client.callTool({
          name: "hover",
          arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 },
        })) as ToolResult;
        const text = result.content.map((part) => part.text ?? "").join("\n");
        return {
          start,
          end: Date.now(),
          ok: !result.isError && text.includes("new PoliteGreeter(): PoliteGreeter"),
          text,
        };
      };
      const first = await hover(clients[0]!);
      expect(first.ok, first.text).toBe(true);
      const stopped = target(serve.child.pid!, which);
      expect(stopped, `the ${which} is running`).toBeDefined();
      const before = tsservers(serve.child.pid!).map((server) => server.pid);

      const calls: Call[] = [];
      let running = true;
      const load = clients.map(async (client) => {
        while (running) calls.push(await hover(client));
      });
      // The load is on: as many answers as callers came back before the stop.
      await waitFor("answers under load", () => calls.length >= CALLERS);
      const stoppedAt = Date.now();
      process.kill(stopped!, "SIGSTOP");
      try {
        // Load until answers have been correct again for 2 s (or the promise is broken): the
        // process watch scans every 2 s, so a new server wrongly taken for stopped would show.
        await waitFor(
          "answers correct again for 2 s",
          () => {
            const recovered = calls.find((call) => call.ok && call.start > stoppedAt);
            return recovered !== undefined && Date.now() > recovered.end + STEADY_MS;
          },
          { timeoutMs: RECOVERY_MS + GATEWAY_DEADLINE_MS },
        ).catch(() => {});
        running = false;
        await Promise.all(load);
      } finally {
        // The stopped process should be gone by now (killed); if it is not, it must not stay stopped.
        const stillThere = isRunning(stopped!);
        if (stillThere) process.kill(stopped!, "SIGCONT");
        expect(stillThere, `the stopped ${which} was killed`).toBe(false);
      }

      const failures = calls.filter((call) => !call.ok);
      expect(failures.length, "calls in flight at the stop fail").toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure.text).toMatch(/^TIMEOUT: the typescript language server stopped answering/);
        expect(failure.end - failure.start).toBeLessThan(GATEWAY_DEADLINE_MS);
      }
      const firstFailure = Math.min(...failures.map((call) => call.end));
      expect(firstFailure - stoppedAt, "the first affected call fails long before the gateway's deadline").toBeLessThan(
        GATEWAY_DEADLINE_MS / 2,
      );
      const recovered = calls.find((call) => call.ok && call.start > stoppedAt);
      expect(recovered, "correct answers again").toBeDefined();
      expect(recovered!.end - stoppedAt).toBeLessThan(RECOVERY_MS);
      // After recovery every call is correct.
      expect(calls.filter((call) => call.start > recovered!.end && !call.ok)).toEqual([]);

      // One new server in the stopped one's place; the old tree is gone whole.
      const now = tsservers(serve.child.pid!);
      expect(now.filter((server) => server.semantic)).toHaveLength(1);
      for (const pid of before) expect(isRunning(pid), `old tsserver ${pid}`).toBe(false);
      console.log(
        `SIGSTOP ${which}: ${calls.length} calls, ${failures.length} TIMEOUT after ${firstFailure - stoppedAt} ms, correct again ${recovered!.end - stoppedAt} ms after the stop`,
      );
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  },
);
