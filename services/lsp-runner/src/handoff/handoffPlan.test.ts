import { rankByHrw, sessionId } from "@lspmesh/events";
import { describe, expect, test } from "vitest";
import {
  defaultHandoffMs,
  handoffComplete,
  handoffStates,
  type PeerEntry,
  registryViewKeys,
  sessionsToReclaim,
  sessionsToTakeOver,
  successorOf,
} from "./handoffPlan.js";

const runner = (id: string, fields: Partial<PeerEntry> = {}): PeerEntry => ({
  id,
  languages: ["typescript"],
  draining: false,
  warm: [],
  ...fields,
});
const session = (workspace: string, tenant = "acme", language = "typescript") => ({ tenant, workspace, language });
/** The runner ids in the order gateways rank them for `workspace`. */
const order = (workspace: string, ids: string[]) =>
  rankByHrw(
    session(workspace),
    ids.map((id) => ({ id })),
  ).map((r) => r.id);

describe("successors", () => {
  test("the successor is the HRW leader among runners not draining that admit the tenant and serve the language", () => {
    const [first, second, third] = order("web", ["a", "b", "c"]) as [string, string, string];
    const all = [runner("a"), runner("b"), runner("c")];
    expect(successorOf(session("web"), all)?.id).toBe(first);
    const drained = all.map((r) => (r.id === first ? { ...r, draining: true } : r));
    expect(successorOf(session("web"), drained)?.id).toBe(second);
    const pinned = drained.map((r) => (r.id === second ? { ...r, tenants: ["globex"] } : r));
    expect(successorOf(session("web"), pinned)?.id).toBe(third);
    expect(successorOf(session("web", "acme", "python"), all)).toBeUndefined();
  });

  test("a runner takes over what a draining runner lists whose successor it is, unless warm already", () => {
    const [owner, next] = order("web", ["a", "b", "c"]) as [string, string, string];
    const draining = runner(owner, { draining: true, warm: ["acme/web/typescript", "acme/web/typescript", "bad"] });
    const peers = [draining, runner("a"), runner("b"), runner("c")].filter(
      (r, i, all) => all.findIndex((x) => x.id === r.id) === i,
    );
    for (const id of ["a", "b", "c"].filter((id) => id !== owner)) {
      const taken = sessionsToTakeOver(runner(id), peers, new Set());
      expect(taken).toEqual(id === next ? [session("web")] : []);
    }
    expect(sessionsToTakeOver(runner(next), peers, new Set(["acme/web/typescript"]))).toEqual([]);
    // A draining runner takes nothing over.
    expect(sessionsToTakeOver(runner(next, { draining: true }), peers, new Set())).toEqual([]);
  });

  test("a dedicated runner takes over only its tenants' sessions, a pool only its languages'", () => {
    const draining = runner("old", { draining: true, warm: ["globex/shop/typescript", "acme/web/python"] });
    expect(sessionsToTakeOver(runner("new", { tenants: ["acme"] }), [draining], new Set())).toEqual([]);
    expect(
      sessionsToTakeOver(runner("py", { languages: ["python"] }), [draining], new Set()).map((s) => sessionId(s)),
    ).toEqual(["acme/web/python"]);
  });

  test("a returning runner reclaims what the others hold warm that it will own once live", () => {
    const workspaces = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const held = runner("b", { warm: workspaces.map((w) => `acme/${w}/typescript`) });
    const reclaimed = sessionsToReclaim(runner("a"), [held, runner("a", { warm: [] })], new Set()).map(
      (s) => s.workspace,
    );
    const owned = workspaces.filter((w) => order(w, ["a", "b"])[0] === "a");
    expect(reclaimed).toEqual(owned);
    expect(owned.length).toBeGreaterThan(5);
    expect(owned.length).toBeLessThan(35);
  });
});

describe("when a drain may stop taking calls", () => {
  test("once every handed session is warm at its successor; sessions without one do not wait", () => {
    const ids = ["acme/web/typescript", "acme/api/typescript", "acme/lib/python"];
    const cold = handoffStates(ids, "old", [runner("old", { draining: true }), runner("b")]);
    expect(cold.map((s) => s.successor)).toEqual(["b", "b", undefined]);
    expect(handoffComplete(cold)).toBe(false);
    const partly = handoffStates(ids, "old", [runner("b", { warm: ["acme/web/typescript"] })]);
    expect(partly.map((s) => s.warm)).toEqual([true, false, false]);
    expect(handoffComplete(partly)).toBe(false);
    const done = handoffStates(ids, "old", [runner("b", { warm: ids })]);
    expect(handoffComplete(done)).toBe(true);
    // Alone (a one-replica pool): nothing to wait for.
    expect(handoffComplete(handoffStates(ids, "old", [runner("old", { draining: true })]))).toBe(true);
  });

  test("the successor is the one gateways pick once the draining entry is gone (it may drain too)", () => {
    const [first, second] = order("web", ["b", "c"]) as [string, string];
    const states = handoffStates(["acme/web/typescript"], "old", [runner(first, { draining: true }), runner(second)]);
    expect(states[0]?.successor).toBe(second);
  });

  test("the handoff budget leaves in-flight calls their whole deadline", () => {
    expect(defaultHandoffMs(45_000)).toBe(15_000);
    expect(defaultHandoffMs(20_000)).toBe(0);
  });
});

describe("the registry a runner follows", () => {
  test("every key when it serves every tenant; its pool's, or only its own, when pinned", () => {
    expect(registryViewKeys("typescript.pod-0", "typescript", undefined)).toEqual({ registry: ">", claims: ">" });
    expect(registryViewKeys("typescript-acme.pod-0", "typescript-acme", ["acme"])).toEqual({
      registry: "typescript-acme.*",
      claims: "*.typescript-acme.*",
    });
    expect(registryViewKeys("acme-1", "typescript", ["acme"])).toEqual({ registry: "acme-1", claims: "*.acme-1" });
  });
});
