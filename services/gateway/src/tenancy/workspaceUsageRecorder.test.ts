import { expect, test } from "vitest";
import { WorkspaceUsageRecorder } from "./workspaceUsageRecorder.js";

test("a workspace's use is written at most once per period from a gateway; a failed put is tried again on the next touch", async () => {
  let now = 1_000_000;
  const puts: Array<[string, string]> = [];
  let fail = false;
  const problems: string[] = [];
  const recorder = new WorkspaceUsageRecorder(
    {
      put: async (key, value) => {
        if (fail) throw new Error("nats away");
        puts.push([key, value]);
      },
    },
    { everyMs: 30_000, now: () => now, onProblem: (message) => problems.push(message) },
  );
  recorder.touch("acme", "web");
  recorder.touch("acme", "web");
  recorder.touch("acme", "api");
  now += 29_999;
  recorder.touch("acme", "web");
  now += 1;
  recorder.touch("acme", "web");
  await recorder.close();
  expect(puts).toEqual([
    ["acme.web", '{"v":1,"at":1000000}'],
    ["acme.api", '{"v":1,"at":1000000}'],
    ["acme.web", '{"v":1,"at":1030000}'],
  ]);

  const again = new WorkspaceUsageRecorder(
    { put: async () => (fail ? Promise.reject(new Error("nats away")) : undefined) },
    { now: () => now, onProblem: (message) => problems.push(message) },
  );
  fail = true;
  again.touch("acme", "web");
  again.touch("acme", "api");
  await new Promise((resolve) => setImmediate(resolve));
  expect(problems).toHaveLength(1); // said once per outage
  fail = false;
  again.touch("acme", "web"); // the failed one is written at the next touch, not 30 s later
  await again.close();
  again.touch("acme", "x"); // closed: nothing
});
