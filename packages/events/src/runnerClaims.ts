// The tenants each runner may serve (gateways route by them; runners compute handoff successors
// by them), from the claims bucket (KV `lspmesh-runner-claims`,
// docs/events.md): keys `<tenant>.<runner id>` that NATS lets a runner's identity write only for
// the tenants it was issued. A registry entry lists tenants too, but anyone with a runner identity
// can write any list there; routing trusts the list only as far as the claims go.
import { KvFollower, type KvWatchSource } from "./kvFollower.js";
import { ANY_TENANT_CLAIM, parseRunnerClaimKey, RUNNER_CLAIMS_BUCKET } from "./subjects.js";

export class RunnerClaims {
  /** runner id → tenants claimed (ANY_TENANT_CLAIM: every tenant). */
  private readonly held = new Map<string, Set<string>>();
  private readonly follower: KvFollower;

  constructor(source: KvWatchSource, onProblem?: (message: string, key: string) => void) {
    this.follower = new KvFollower(
      "registry claims",
      RUNNER_CLAIMS_BUCKET,
      source,
      (change) => {
        const claim = parseRunnerClaimKey(change.key);
        if (!claim) return;
        const tenants = this.held.get(claim.runnerId) ?? new Set<string>();
        if (change.operation === "DEL" || change.operation === "PURGE") tenants.delete(claim.tenant);
        else tenants.add(claim.tenant);
        if (tenants.size > 0) this.held.set(claim.runnerId, tenants);
        else this.held.delete(claim.runnerId);
      },
      onProblem,
    );
  }

  /** Resolves once the bucket's current claims are loaded. */
  start(): Promise<void> {
    return this.follower.start();
  }

  /**
   * The tenants a runner may be routed, given the tenants its entry lists (undefined: every
   * tenant): those it also claims. undefined = every tenant; [] = none (no claim at all).
   */
  admitted(runnerId: string, listed: readonly string[] | undefined): readonly string[] | undefined {
    const held = this.held.get(runnerId);
    if (!held) return [];
    if (held.has(ANY_TENANT_CLAIM)) return listed;
    return listed ? listed.filter((tenant) => held.has(tenant)) : [...held].sort();
  }

  close(): void {
    this.follower.close();
  }
}

/** Tenants an entry lists (undefined: every tenant) beyond those it was admitted (RunnerClaims.admitted), for the problem log. */
export function unclaimedTenants(
  listed: readonly string[] | undefined,
  admitted: readonly string[] | undefined,
): string[] {
  if (admitted === undefined) return [];
  if (listed === undefined) return ["every tenant"];
  return listed.filter((tenant) => !admitted.includes(tenant));
}
