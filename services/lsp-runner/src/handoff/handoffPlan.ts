// Who takes a session over, and when a draining runner may stop: pure decisions over the registry
// entries a runner sees (handoff, docs/architecture.md). Every runner and gateway ranks with the
// same rendezvous hashing (@lspmesh/events hrw.ts), so a session's successor is the runner the
// gateways route it to once the draining runner's entry is gone.
import { parseSessionId, type RankedRunner, rankForKey, type SessionRef, sessionId } from "@lspmesh/events";
import { DEFAULT_CALL_TIMEOUT_MS } from "@lspmesh/proto";

/** A runner as the handoff sees it: routing fields, whether it drains, the sessions it has warm. */
export interface PeerEntry extends RankedRunner {
  readonly draining: boolean;
  /** Session ids (`tenant/workspace/language`), most recently used first. */
  readonly warm: readonly string[];
}

/** The runner gateways route `session` to among those not draining, or undefined when none serves it. */
export function successorOf(session: SessionRef, runners: readonly PeerEntry[]): PeerEntry | undefined {
  return rankForKey(
    session,
    runners.filter((runner) => !runner.draining),
  )[0];
}

/** `self` instead of any entry with its id (its own, possibly stale, registry entry). */
function withSelf(self: PeerEntry, peers: readonly PeerEntry[]): PeerEntry[] {
  return [self, ...peers.filter((peer) => peer.id !== self.id)];
}

/** The sessions listed warm by these runners, once each, in their lists' order. */
function listedSessions(runners: readonly PeerEntry[]): SessionRef[] {
  const seen = new Set<string>();
  const sessions: SessionRef[] = [];
  for (const runner of runners) {
    for (const id of runner.warm) {
      const session = seen.has(id) ? undefined : parseSessionId(id);
      seen.add(id);
      if (session) sessions.push(session);
    }
  }
  return sessions;
}

/**
 * What `self` warms now: the sessions draining runners list as warm whose successor is `self`,
 * and that are not warm here yet (`warmHere`: ids).
 */
export function sessionsToTakeOver(
  self: PeerEntry,
  peers: readonly PeerEntry[],
  warmHere: ReadonlySet<string>,
): SessionRef[] {
  if (self.draining) return [];
  const runners = withSelf(self, peers);
  const draining = runners.filter((runner) => runner.draining);
  return listedSessions(draining).filter(
    (session) => !warmHere.has(sessionId(session)) && successorOf(session, runners)?.id === self.id,
  );
}

/**
 * What a starting runner warms before it registers: the sessions other runners list as warm that
 * the gateways will route to `self` once it is live (rendezvous hashing gives each runner its share
 * back), and that are not warm here yet.
 */
export function sessionsToReclaim(
  self: PeerEntry,
  peers: readonly PeerEntry[],
  warmHere: ReadonlySet<string>,
): SessionRef[] {
  const runners = withSelf({ ...self, draining: false }, peers);
  const others = runners.filter((runner) => runner.id !== self.id);
  return listedSessions(others).filter(
    (session) => !warmHere.has(sessionId(session)) && successorOf(session, runners)?.id === self.id,
  );
}

/** A session a draining runner hands over, and where it goes. */
export interface HandoffState {
  session: SessionRef;
  /** The successor's id; undefined when no other runner serves it (nothing to wait for). */
  successor: string | undefined;
  /** The successor lists it warm. */
  warm: boolean;
}

/** Where each of `handed` (ids) stands, seen from the draining runner `selfId`. */
export function handoffStates(handed: readonly string[], selfId: string, peers: readonly PeerEntry[]): HandoffState[] {
  const others = peers.filter((peer) => peer.id !== selfId);
  return handed.flatMap((id) => {
    const session = parseSessionId(id);
    if (!session) return [];
    const successor = successorOf(session, others);
    return [{ session, successor: successor?.id, warm: successor?.warm.includes(id) ?? false }];
  });
}

/** The drain may go on to stop taking calls: every handed session is warm at its successor (or has none). */
export function handoffComplete(states: readonly HandoffState[]): boolean {
  return states.every((state) => state.successor === undefined || state.warm);
}

/**
 * The handoff's share of a drain, ms: what is left once in-flight calls have their whole deadline
 * (drainMs − DEFAULT_CALL_TIMEOUT_MS, 30 s), at least 0. 15 000 for the default 45 000 drain.
 */
export function defaultHandoffMs(drainMs: number): number {
  return Math.max(0, drainMs - DEFAULT_CALL_TIMEOUT_MS);
}

/**
 * The registry and claims keys a runner follows, as its NATS identity may read them
 * (runnerPermissions' registryView): a runner serving every tenant every key; one pinned to
 * tenants its own identity's, `<pool>.*` for an id `<pool>.<name>` (a pool's shared credential),
 * else its id alone (then it sees no successor and drains as before).
 */
export function registryViewKeys(
  id: string,
  pool: string | undefined,
  tenants: readonly string[] | undefined,
): { registry: string; claims: string } {
  if (!tenants?.length) return { registry: ">", claims: ">" };
  const own = pool && id.startsWith(`${pool}.`) ? `${pool}.*` : id;
  return { registry: own, claims: `*.${own}` };
}
