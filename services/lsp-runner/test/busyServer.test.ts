// A language server that misses the liveness probe while it keeps a CPU busy is working through
// something large (pyright on a 20 MB module blocks its message loop for minutes), not hung: it is
// left to finish, its callers told it is busy, up to its language's (or the policy's) maxBusyMs,
// unless file events keep arriving meanwhile; one that misses the probe without using the CPU is
// hung and replaced at once. Real processes, real CPU time read from /proc, real file events; the
// server is a small one whose hover takes as long as the hovered file says.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServiceError } from "@lspmesh/grpc";
import { waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageRegistry, type LifecycleEvent } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const SLOW_SERVER = fileURLToPath(new URL("./support/slowServer.mjs", import.meta.url));
/** The server's request timeout and probe timeout here, ms: short, so that the cases take seconds. */
const REQUEST_TIMEOUT_MS = 1_000;
const PROBE_TIMEOUT_MS = 300;

interface Patience {
  /** The language's own maxBusyMs. */
  language?: number;
  /** The session policy's, for every language. */
  policy?: number;
}

async function slowRunner(patience: Patience, events: LifecycleEvent[]): Promise<FixtureRunner> {
  return startFixtureRunner({
    files: { "quick.slow": "quick\n", "spin.slow": "spin 6000\n", "block.slow": "block 3000\n" },
    languages: new LanguageRegistry([
      {
        id: "slow",
        extensions: { ".slow": "slow" },
        command: process.execPath,
        args: [SLOW_SERVER],
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        maxBusyMs: patience.language,
      },
    ]),
    sessionPolicy: {
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      maxBusyMs: patience.policy,
      restart: { initialBackoffMs: 20, maxBackoffMs: 100, coolDownMs: 1_000 },
    },
    onLifecycleEvent: (event) => events.push(event),
    // Every hover reaches the server: a remembered answer would hide what the server does.
    answerCacheEntries: 0,
  });
}

/** The answer's text ("pid <n>"), or the error's code and message. */
function hover(env: FixtureRunner, file: string): Promise<string> {
  return env.client
    .hover({ workspace: ws, at: { file, target: { case: "position", value: { line: 1, column: 1 } } } })
    .then(
      (answer) => answer.contents,
      (error: ServiceError) => `${error.metadata.get("lspmesh-error-code")[0]}: ${error.details}`,
    );
}

const failures = (events: LifecycleEvent[]) => events.filter((event) => event.kind === "failed");

describe("a server left to work (its language's maxBusyMs 30 s)", () => {
  const events: LifecycleEvent[] = [];
  let env: FixtureRunner;
  beforeAll(async () => {
    env = await slowRunner({ language: 30_000 }, events);
  });
  afterAll(() => env?.close());

  test("keeping a CPU busy past the probe: callers hear it is busy, and the same server answers once done", async () => {
    const before = await hover(env, "quick.slow");
    expect(before).toMatch(/^pid \d+$/);
    expect(await hover(env, "spin.slow")).toMatch(/^TIMEOUT: /);
    // Asked while it still works: the probe found it busy.
    expect(await hover(env, "quick.slow")).toMatch(
      /^TIMEOUT: the slow language server is busy: it has kept a CPU busy for \d+ s without answering/,
    );
    expect(
      await waitFor("an answer once the work is done", async () => {
        const answer = await hover(env, "quick.slow");
        return answer.startsWith("pid") ? answer : undefined;
      }),
    ).toBe(before);
    expect(failures(events)).toEqual([]);
  });

  test("blocked without using the CPU past the probe: hung, replaced at once", async () => {
    const before = await hover(env, "quick.slow");
    expect(await hover(env, "block.slow")).toMatch(/^TIMEOUT: /);
    const failed = await waitFor("the hung server failed", () => failures(events)[0]);
    expect(failed.reason).toMatch(
      /^stopped answering \(textDocument\/hover timed out after \d+ ms and a liveness probe got no answer within 300 ms\)/,
    );
    expect(failed.reason).not.toContain("CPU busy");
    const after = await waitFor("a new server's answer", async () => {
      const answer = await hover(env, "quick.slow");
      return answer.startsWith("pid") ? answer : undefined;
    });
    expect(after).not.toBe(before);
  });

  test("busy while file events keep arriving: replaced at once, the reason says so", async () => {
    const before = await hover(env, "quick.slow");
    const failedBefore = failures(events).length;
    // A writer changing files all along, as a sync service or a folder swapped in a loop does.
    let written = 0;
    const writer = setInterval(() => writeFileSync(join(env.dir, `churn-${written++ % 5}.txt`), `${written}\n`), 100);
    try {
      expect(await hover(env, "spin.slow")).toMatch(/^TIMEOUT: /);
      const failed = await waitFor("the flooded server failed", () => failures(events)[failedBefore]);
      expect(failed.reason).toMatch(/it has kept a CPU busy for \d+ s while file events kept arriving\)$/);
    } finally {
      clearInterval(writer);
    }
    const after = await waitFor("a new server's answer", async () => {
      const answer = await hover(env, "quick.slow");
      return answer.startsWith("pid") ? answer : undefined;
    });
    expect(after).not.toBe(before);
  });
});

describe("a server busy for longer than the policy's maxBusyMs (1 s, over its language's 30 s)", () => {
  const events: LifecycleEvent[] = [];
  let env: FixtureRunner;
  beforeAll(async () => {
    env = await slowRunner({ language: 30_000, policy: 1_000 }, events);
  });
  afterAll(() => env?.close());

  test("is replaced, the reason naming how long it kept a CPU busy", async () => {
    const before = await hover(env, "quick.slow");
    expect(await hover(env, "spin.slow")).toMatch(/^TIMEOUT: /);
    const failed = await waitFor("the busy server failed", () => failures(events)[0]);
    expect(failed.reason).toMatch(/it has kept a CPU busy for \d+ s without answering\)/);
    const after = await waitFor("a new server's answer", async () => {
      const answer = await hover(env, "quick.slow");
      return answer.startsWith("pid") ? answer : undefined;
    });
    expect(after).not.toBe(before);
  });
});
