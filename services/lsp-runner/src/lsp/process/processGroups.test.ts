import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseProcStat, readProcesses, SharedProcessTable } from "./processGroups.js";

describe("parseProcStat", () => {
  test("reads pid, process group, resident pages and CPU ticks", () => {
    const line =
      "28322 (node) S 28311 28311 28311 0 -1 4194304 51188 0 0 0 120 30 0 0 20 0 11 0 123456 1234567890 40123 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0";
    expect(parseProcStat(line)).toEqual({
      pid: 28322,
      name: "node",
      state: "S",
      pgid: 28311,
      rssPages: 40123,
      cpuTicks: 150,
    });
  });

  test("a command name with spaces and parentheses does not shift the fields", () => {
    const line = "77 (a) b (c)) R 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 100 9 0";
    expect(parseProcStat(line)).toEqual({
      pid: 77,
      name: "a) b (c)",
      state: "R",
      pgid: 70,
      rssPages: 9,
      cpuTicks: 0,
    });
  });

  test("garbage is undefined", () => {
    expect(parseProcStat("nonsense")).toBeUndefined();
  });
});

describe("SharedProcessTable", () => {
  /** A table whose reads are numbered: read n finds one process with pid n. */
  function numberedReads() {
    let clock = 0;
    let reads = 0;
    const table = new SharedProcessTable(
      async () => [{ pid: ++reads, name: "x", state: "S", pgid: 1, rssPages: 0, cpuTicks: 0 }],
      () => clock,
    );
    return {
      table,
      advance: (ms: number) => {
        clock += ms;
      },
      pidOf: async (maxAgeMs: number) => (await table.processes(maxAgeMs))[0]?.pid,
    };
  }

  test("callers within maxAgeMs of a read share it; later ones read again", async () => {
    const { advance, pidOf } = numberedReads();
    expect(await pidOf(1_000)).toBe(1);
    advance(999);
    expect(await pidOf(1_000)).toBe(1);
    advance(2);
    expect(await pidOf(1_000)).toBe(2);
  });

  test("maxAgeMs 0 always reads now, and what it read is shared after", async () => {
    const { advance, pidOf } = numberedReads();
    expect(await pidOf(1_000)).toBe(1);
    expect(await pidOf(0)).toBe(2);
    advance(500);
    expect(await pidOf(1_000)).toBe(2);
  });

  test("a failed read is an empty table, and the next caller past maxAgeMs reads again", async () => {
    let clock = 0;
    let fail = true;
    const table = new SharedProcessTable(
      async () => {
        if (fail) throw new Error("EACCES");
        return [{ pid: 9, name: "x", state: "S", pgid: 1, rssPages: 0, cpuTicks: 0 }];
      },
      () => clock,
    );
    expect(await table.processes(1_000)).toEqual([]);
    fail = false;
    clock = 1_001;
    expect((await table.processes(1_000)).map((p) => p.pid)).toEqual([9]);
  });
});

describe("readProcesses", () => {
  test("the table holds every process /proc lists, this one with its own process group, read over several turns", async () => {
    const listed = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).length;
    const table = await readProcesses(0);
    const self = table.find((each) => each.pid === process.pid);
    expect(self?.pgid).toBe(parseProcStat(readFileSync("/proc/self/stat", "utf8"))?.pgid);
    // A few may exit or start between the two listings; none is dropped between turns.
    expect(Math.abs(table.length - listed)).toBeLessThanOrEqual(5);
  });
});
