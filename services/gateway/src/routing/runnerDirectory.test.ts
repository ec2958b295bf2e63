import { encodeJson, RunnerClaims, type RunnerRegistryEntry } from "@lspmesh/events";
import { describe, expect, test } from "vitest";
import { RegistryRunnerDirectory, registryEntryFrom, StaticRunnerDirectory } from "./runnerDirectory.js";

const entry = (id: string, overrides: Partial<RunnerRegistryEntry> = {}): RunnerRegistryEntry => ({
  v: 1,
  id,
  address: "10.0.0.7:7421",
  languages: ["typescript"],
  pool: "typescript",
  load: 2,
  updatedAt: 1_000_000,
  heartbeatMs: 2000,
  ...overrides,
});

describe("registry entries", () => {
  test("a v1 entry is accepted; the key names it when id is missing", () => {
    expect(registryEntryFrom("r1", entry("r1")).entry?.id).toBe("r1");
    expect(registryEntryFrom("k", { ...entry("r1"), id: "" }).entry?.id).toBe("k");
    expect(registryEntryFrom("r1", { ...entry("r1"), address: "[::1]:7421" }).entry).toBeDefined();
  });

  test.each([
    [null, "not a JSON object"],
    [{ ...entry("r"), v: 2 }, "unsupported version"],
    [{ ...entry("r"), address: "no-port" }, "host:port"],
    [{ ...entry("r"), languages: "typescript" }, "languages"],
    [{ ...entry("r"), heartbeatMs: 0 }, "heartbeatMs"],
    [{ ...entry("r"), tenants: ["Acme"] }, "tenant ids"],
    [entry("another-runner"), "id is not its key"],
  ])("%j is refused (%s)", (value, problem) => {
    expect(registryEntryFrom("r", value).problem).toContain(problem);
  });
});

/** A watch that yields the given changes and then ends (or stays open). */
function watchOf(changes: Array<{ key: string; value: unknown; delta?: number }>, end: boolean) {
  let stopped = false;
  return {
    stop() {
      stopped = true;
    },
    async *[Symbol.asyncIterator]() {
      for (const change of changes) {
        yield { key: change.key, operation: "PUT", value: encodeJson(change.value), delta: change.delta ?? 0 };
      }
      while (!end && !stopped) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

test("liveness is judged by updatedAt against 3 heartbeats; a watch that ends is opened again, said to listeners", async () => {
  const watches = [
    watchOf([{ key: "r1", value: entry("r1", { updatedAt: Date.now() }) }], true),
    watchOf([{ key: "r2", value: entry("r2", { updatedAt: Date.now() }) }], false),
  ];
  const problems: string[] = [];
  const interruptions: boolean[] = [];
  const directory = new RegistryRunnerDirectory({ watch: async () => watches.shift()! }, (m) => problems.push(m));
  directory.onWatchInterruption((interrupted) => interruptions.push(interrupted));
  await directory.start();
  try {
    expect(directory.loaded).toBe(true);
    expect(directory.live().map((r) => r.id)).toEqual(["r1"]);
    expect(directory.live(Date.now() + 6_001)).toEqual([]);
    expect(directory.known(Date.now() + 6_001)[0]).toMatchObject({ id: "r1", live: false, load: 2 });
    for (let i = 0; i < 100 && directory.live().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(
      directory
        .live()
        .map((r) => r.id)
        .sort(),
    ).toEqual(["r1", "r2"]);
    expect(problems).toContain("registry watch ended; watching again");
    // Routing hears that heartbeats went unseen, then that they are followed again.
    expect(interruptions).toEqual([true, false]);
  } finally {
    await directory.close();
  }
});

test("static runners are always live and serve every language", async () => {
  const directory = new StaticRunnerDirectory(["a:1", "b:2"]);
  expect(directory.live().map((r) => [r.id, r.languages])).toEqual([
    ["a:1", ["*"]],
    ["b:2", ["*"]],
  ]);
  expect(() => new StaticRunnerDirectory([])).toThrow(/at least one/);
  await directory.close();
});

/** A watch of claim keys (puts, then deletes), that stays open. */
function claimsWatch(puts: string[], deletes: string[] = []) {
  let stopped = false;
  return {
    stop() {
      stopped = true;
    },
    async *[Symbol.asyncIterator]() {
      const changes = [...puts.map((key) => [key, "PUT"]), ...deletes.map((key) => [key, "DEL"])];
      for (const [index, [key, operation]] of changes.entries()) {
        yield { key: key!, operation: operation!, value: new Uint8Array(), delta: changes.length - 1 - index };
      }
      while (!stopped) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

test("a runner is routed only the tenants it holds claims on; one without any claim is not live", async () => {
  const now = Date.now();
  const claims = new RunnerClaims({
    watch: async () =>
      claimsWatch(
        ["acme.dedicated", "_any.shared", "acme.wide", "acme.gone", "globex.gone"],
        ["acme.gone", "globex.gone"],
      ),
  });
  const problems: string[] = [];
  const directory = new RegistryRunnerDirectory(
    {
      watch: async () =>
        watchOf(
          [
            // Lists globex, holds only acme's claim.
            { key: "dedicated", delta: 4, value: entry("dedicated", { tenants: ["acme", "globex"], updatedAt: now }) },
            { key: "shared", delta: 3, value: entry("shared", { updatedAt: now }) },
            // Lists every tenant, holds only acme's claim.
            { key: "wide", delta: 2, value: entry("wide", { updatedAt: now }) },
            { key: "unclaimed", delta: 1, value: entry("unclaimed", { tenants: ["acme"], updatedAt: now }) },
            { key: "gone", delta: 0, value: entry("gone", { tenants: ["acme"], updatedAt: now }) },
          ],
          false,
        ),
    },
    (message, key) => problems.push(`${key}: ${message}`),
    claims,
  );
  await claims.start();
  await directory.start();
  try {
    expect(directory.live().map((r) => [r.id, r.tenants])).toEqual([
      ["dedicated", ["acme"]],
      ["shared", undefined],
      ["wide", ["acme"]],
    ]);
    expect(
      directory
        .known()
        .filter((r) => !r.live)
        .map((r) => [r.id, r.tenants]),
    ).toEqual([
      ["unclaimed", []],
      ["gone", []],
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        "dedicated: runner lists globex without holding its claim: not routed for it",
        "wide: runner lists every tenant without holding its claim: not routed for it",
        "unclaimed: runner lists acme without holding its claim: not routed for it",
      ]),
    );
    // Said once, however often routing looks.
    directory.live();
    expect(problems.filter((p) => p.startsWith("dedicated:"))).toHaveLength(1);
  } finally {
    await directory.close();
  }
});

test("a draining runner (handoff) stays live and routed until its entry is removed", async () => {
  const now = Date.now();
  const directory = new RegistryRunnerDirectory({
    watch: async () =>
      watchOf(
        [
          { key: "r1", value: entry("r1", { updatedAt: now, draining: true, warm: ["acme/web/typescript"] }) },
          { key: "r2", value: entry("r2", { updatedAt: now }) },
        ],
        false,
      ),
  });
  await directory.start();
  expect(
    directory
      .live(now)
      .map((runner) => runner.id)
      .sort(),
  ).toEqual(["r1", "r2"]);
  await directory.close();
});
