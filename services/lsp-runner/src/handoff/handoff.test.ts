import { rankByHrw, type SessionRef, sessionId } from "@lspmesh/events";
import { afterEach, describe, expect, test } from "vitest";
import { Handoff, type HandoffOptions } from "./handoff.js";
import type { PeerEntry } from "./handoffPlan.js";

const runner = (id: string, fields: Partial<PeerEntry> = {}): PeerEntry => ({
  id,
  languages: ["typescript"],
  draining: false,
  warm: [],
  ...fields,
});
const WORKSPACES = Array.from({ length: 12 }, (_, i) => `w${i}`);
const ids = (workspaces: readonly string[]) => workspaces.map((w) => `acme/${w}/typescript`);
/** The workspaces whose HRW leader among `among` is `id`. */
const ownedBy = (id: string, among: string[]) =>
  WORKSPACES.filter(
    (workspace) =>
      rankByHrw(
        { tenant: "acme", workspace, language: "typescript" },
        among.map((r) => ({ id: r })),
      )[0]?.id === id,
  );

/** A handoff over a registry the test edits; warm-ups take `warmMs`. */
function harness(selfId: string, options: Partial<HandoffOptions> & { warmMs?: number } = {}) {
  let peers: PeerEntry[] = [];
  let notify = () => {};
  const warmed: string[] = [];
  let published = 0;
  const handoff = new Handoff({
    self: { id: selfId, languages: ["typescript"] },
    peers: (onChange) => {
      notify = onChange;
      return { start: async () => {}, live: () => peers, close: () => {} };
    },
    warmSessions: () => [],
    warm: async (session: SessionRef) => {
      await new Promise((resolve) => setTimeout(resolve, options.warmMs ?? 5));
      warmed.push(sessionId(session));
    },
    publish: async () => {
      published++;
    },
    budgetMs: 2_000,
    log: () => {},
    checkMs: 20,
    ...options,
  });
  return {
    handoff,
    warmed,
    published: () => published,
    setPeers(next: PeerEntry[]) {
      peers = next;
      notify();
    },
  };
}

const open: Handoff[] = [];
afterEach(() => {
  for (const handoff of open.splice(0)) handoff.close();
});

describe("the successor's side", () => {
  test("warms what a draining runner lists whose successor it is, then lists it warm and publishes", async () => {
    const b = harness("b");
    open.push(b.handoff);
    await b.handoff.start();
    const mine = ownedBy("b", ["b", "c"]);
    b.setPeers([runner("a", { draining: true, warm: ids(WORKSPACES) }), runner("c")]);
    await expect.poll(() => b.warmed.length, { timeout: 2_000 }).toBe(mine.length);
    expect([...b.warmed].sort()).toEqual(ids(mine).sort());
    expect([...b.handoff.warmList()].sort()).toEqual(ids(mine).sort());
    expect(b.published()).toBeGreaterThanOrEqual(mine.length);
    // Told again (a heartbeat): nothing is warmed twice.
    b.setPeers([runner("a", { draining: true, warm: ids(WORKSPACES) }), runner("c")]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(b.warmed).toHaveLength(mine.length);
  });
});

describe("the draining side", () => {
  test("holds the drain until each session is warm at its successor", async () => {
    const a = harness("a", { warmSessions: () => ids(["w1", "w2"]) });
    open.push(a.handoff);
    await a.handoff.start();
    a.setPeers([runner("b")]);
    const draining = a.handoff.drain();
    expect(a.handoff.isDraining).toBe(true);
    let done = false;
    void draining.then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done).toBe(false);
    a.setPeers([runner("b", { warm: ids(["w1"]) })]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(done).toBe(false);
    a.setPeers([runner("b", { warm: ids(["w2", "w1"]) })]);
    expect(await draining).toMatchObject({ sessions: 2, warm: 2 });
  });

  test("stops waiting after the budget, and at once without a successor", async () => {
    const a = harness("a", { warmSessions: () => ids(["w1"]), budgetMs: 150 });
    open.push(a.handoff);
    await a.handoff.start();
    a.setPeers([runner("b")]);
    const report = await a.handoff.drain();
    expect(report).toMatchObject({ sessions: 1, warm: 0 });
    expect(report.ms).toBeGreaterThanOrEqual(140);
    const alone = harness("a", { warmSessions: () => ids(["w1"]) });
    open.push(alone.handoff);
    await alone.handoff.start();
    expect((await alone.handoff.drain()).ms).toBeLessThan(100);
  });
});

describe("a starting runner", () => {
  test("warms its share of what the others hold before it registers", async () => {
    const a = harness("a");
    open.push(a.handoff);
    a.setPeers([runner("b", { warm: ids(WORKSPACES) })]);
    await a.handoff.start();
    const report = await a.handoff.reclaim();
    const mine = ownedBy("a", ["a", "b"]);
    expect(report).toMatchObject({ sessions: mine.length, warm: mine.length });
    expect([...a.warmed].sort()).toEqual(ids(mine).sort());
  });

  test("gives up at the budget", async () => {
    const a = harness("a", { warmMs: 200, budgetMs: 100, concurrency: 1 });
    open.push(a.handoff);
    a.setPeers([runner("b", { warm: ids(WORKSPACES) })]);
    await a.handoff.start();
    const report = await a.handoff.reclaim();
    expect(report.warm).toBe(0);
    expect(report.ms).toBeLessThan(190);
    a.handoff.close();
    a.handoff.close();
  });
});
