import { JetStreamApiError } from "@nats-io/jetstream";
import {
  ClosedConnectionError,
  NoRespondersError,
  PermissionViolationError,
  RequestError,
  TimeoutError,
} from "@nats-io/transport-node";
import { describe, expect, test } from "vitest";
import { backoffDelayMs, isTransientJetStreamError, retryTransient } from "./jetstreamRetry.js";

/** A clock that moves only when the code under test sleeps. */
function fakeTime() {
  let at = 0;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => at,
    sleep: async (ms: number) => {
      pauses.push(ms);
      at += ms;
    },
  };
}

const apiError = (err_code: number, code: number, description: string) =>
  new JetStreamApiError({ err_code, code, description });

describe("isTransientJetStreamError", () => {
  test("what a cluster says between leaders is transient", () => {
    const noResponders = new RequestError("no responders", { cause: new NoRespondersError("$JS.API.STREAM.INFO.X") });
    const notEnabled = Object.assign(new Error("jetstream is not enabled", { cause: noResponders }), {
      name: "JetStreamNotEnabled",
    });
    for (const error of [
      new TimeoutError(),
      noResponders,
      notEnabled,
      apiError(10008, 503, "JetStream system temporarily unavailable"),
      apiError(10118, 500, "stream is offline"),
      new Error("wrapped", { cause: new TimeoutError() }),
    ]) {
      expect(isTransientJetStreamError(error), String(error)).toBe(true);
    }
  });

  test("refusals and a closed connection are not", () => {
    for (const error of [
      new ClosedConnectionError(),
      new PermissionViolationError("Permissions Violation for Publish", "publish", "$KV.x.y"),
      apiError(10054, 400, "maximum payload exceeded"),
      apiError(10059, 404, "stream not found"),
      new Error("invalid ack response"),
      undefined,
    ]) {
      expect(isTransientJetStreamError(error), String(error)).toBe(false);
    }
  });
});

describe("backoffDelayMs", () => {
  test("doubles from the first pause up to the longest, jittered between half and all of it", () => {
    const policy = { firstDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((attempt) => backoffDelayMs(attempt, policy, () => 0.999999))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect([0, 1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500,
    ]);
  });
});

describe("retryTransient", () => {
  test("retries transient errors until the operation succeeds", async () => {
    const time = fakeTime();
    let calls = 0;
    const retried: number[] = [];
    const result = await retryTransient(
      async () => {
        if (++calls < 4) throw apiError(10008, 503, "JetStream system temporarily unavailable");
        return "acked";
      },
      { ...time, random: () => 0.5, onRetry: (_error, attempt) => retried.push(attempt) },
    );
    expect(result).toBe("acked");
    expect(calls).toBe(4);
    expect(retried).toEqual([0, 1, 2]);
    expect(time.pauses).toEqual([75, 150, 300]);
  });

  test("fails at once on an error that is not transient", async () => {
    const time = fakeTime();
    let calls = 0;
    const refused = new PermissionViolationError("Permissions Violation", "publish", "$KV.x.y");
    await expect(
      retryTransient(async () => {
        calls++;
        throw refused;
      }, time),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
    expect(time.pauses).toEqual([]);
  });

  test("gives up with the last error once the next attempt would start past the budget", async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(
      retryTransient(
        async () => {
          calls++;
          throw new TimeoutError();
        },
        { ...time, random: () => 0.999999, firstDelayMs: 100, maxDelayMs: 400, budgetMs: 1_000 },
      ),
    ).rejects.toBeInstanceOf(TimeoutError);
    // 100 + 200 + 400 = 700 ms spent; another 400 would pass 1 000.
    expect(time.pauses).toEqual([100, 200, 400]);
    expect(calls).toBe(4);
    expect(time.now()).toBeLessThanOrEqual(1_000);
  });
});
