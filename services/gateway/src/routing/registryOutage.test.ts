import { afterEach, expect, test } from "vitest";
import { OutageTolerantDirectory } from "./registryOutage.js";
import type { RunnerDirectory, RunnerEntry } from "./runnerDirectory.js";
import type { RunnerHealth } from "./runnerHealth.js";

const HEARTBEAT_MS = 1_000;
let clock = 100_000;
const now = () => clock;

/** Entries with the time of their last heartbeat; live for 3 heartbeats, like the registry. */
function registry(beats: Map<string, number>): RunnerDirectory {
  const entry = (id: string): RunnerEntry => ({ id, address: `${id}:1`, languages: ["typescript"], load: 0 });
  return {
    loaded: true,
    live: (at = clock) => [...beats].filter(([, beat]) => at - beat < 3 * HEARTBEAT_MS).map(([id]) => entry(id)),
    known: (at = clock) => [...beats].map(([id, beat]) => ({ ...entry(id), live: at - beat < 3 * HEARTBEAT_MS })),
    close: async () => {},
  };
}

class ScriptedHealth implements RunnerHealth {
  readonly down = new Set<string>();
  async serving(address: string): Promise<boolean> {
    return !this.down.has(address);
  }
  close(): void {}
}

const directories: OutageTolerantDirectory[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await directory.close();
});

function setup() {
  const beats = new Map([
    ["a", clock],
    ["b", clock],
  ]);
  const health = new ScriptedHealth();
  const directory = new OutageTolerantDirectory(registry(beats), health, {
    now,
    checkIntervalMs: 60_000,
    graceMs: 5_000,
  });
  directories.push(directory);
  return { beats, health, directory };
}
const ids = (entries: RunnerEntry[]) => entries.map((entry) => entry.id).sort();
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

test("without an outage the registry decides alone", () => {
  const { directory } = setup();
  clock += 10 * HEARTBEAT_MS;
  expect(directory.live()).toEqual([]);
  expect(directory.degraded()).toBeUndefined();
});

test("during an outage the runners live at its start stay routed, long after their entries went stale", async () => {
  const { directory } = setup();
  directory.connectionLost();
  await flush();
  clock += 60_000;
  expect(ids(directory.live())).toEqual(["a", "b"]);
  expect(directory.known().every((entry) => entry.live)).toBe(true);
  expect(directory.degraded()).toMatch(/unreachable since .*routing to 2 last known runner/);
});

test("a runner failing its direct health check is dropped, and comes back when it serves again", async () => {
  const { directory, health } = setup();
  health.down.add("b:1");
  directory.connectionLost();
  await flush();
  expect(ids(directory.live())).toEqual(["a"]);
  health.down.clear();
  // The next check (the interval, here driven by hand through a new outage notice being ignored).
  await (directory as unknown as { checkRunners(): Promise<void> }).checkRunners();
  expect(ids(directory.live())).toEqual(["a", "b"]);
});

test("after NATS is back, the outage ends once every kept runner has a fresh heartbeat", async () => {
  const { directory, beats } = setup();
  directory.connectionLost();
  await flush();
  clock += 30_000;
  directory.connectionRestored();
  beats.set("a", clock);
  expect(ids(directory.live())).toEqual(["a", "b"]);
  expect(directory.degraded()).toMatch(/back; waiting for runners' heartbeats/);
  beats.set("b", clock);
  expect(directory.degraded()).toBeUndefined();
  expect(ids(directory.live())).toEqual(["a", "b"]);
});

test("after NATS is back, a runner that never heartbeats again is dropped after the grace period", async () => {
  const { directory, beats } = setup();
  directory.connectionLost();
  await flush();
  clock += 30_000;
  directory.connectionRestored();
  beats.set("a", clock);
  clock += 4_000;
  expect(ids(directory.live())).toEqual(["a", "b"]);
  clock += 1_500;
  expect(ids(directory.live())).toEqual([]);
  beats.set("a", clock);
  expect(ids(directory.live())).toEqual(["a"]);
  expect(directory.degraded()).toBeUndefined();
});

test("a disconnect during the grace period is still the same outage", async () => {
  const { directory } = setup();
  directory.connectionLost();
  await flush();
  clock += 20_000;
  directory.connectionRestored();
  directory.connectionLost();
  clock += 20_000;
  expect(ids(directory.live())).toEqual(["a", "b"]);
  expect(directory.degraded()).toMatch(/unreachable/);
});

test("a reconnect while the registry's watch is still down does not start the grace period", async () => {
  const { directory, beats } = setup();
  directory.connectionLost("watch");
  directory.connectionLost("connection");
  await flush();
  clock += 30_000;
  directory.connectionRestored("connection");
  clock += 10_000;
  // Past the grace period counted from the reconnect, the runners are still routed: the watch is down.
  expect(ids(directory.live())).toEqual(["a", "b"]);
  expect(directory.degraded()).toMatch(/unreachable/);
  directory.connectionRestored("watch");
  clock += 4_000;
  expect(ids(directory.live())).toEqual(["a", "b"]);
  expect(directory.degraded()).toMatch(/back; waiting for runners' heartbeats/);
  beats.set("a", clock);
  beats.set("b", clock);
  expect(directory.degraded()).toBeUndefined();
});
