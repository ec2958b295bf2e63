// inotify watches are a kernel resource of the runner's user, shared by every tenant it serves
// (fs.inotify.max_user_watches; one watch per folder and watcher). A tenant that creates folders by
// the hundred thousand would exhaust them, and another tenant's new folders would go unwatched.
// Each tenant gets a budget of watches; past it, its watchers poll what they cannot watch (and say
// so), and no other tenant's watches are touched.
import { readFileSync } from "node:fs";

/** Watches one tenant may hold when nothing is configured: an eighth of the kernel's limit, 1 024 to 20 000. */
export function defaultWatchesPerTenant(): number {
  let kernelLimit = 8_192;
  try {
    kernelLimit = Number.parseInt(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8"), 10) || kernelLimit;
  } catch {
    // Not Linux: the kernel's limit is unknown.
  }
  return Math.min(20_000, Math.max(1_024, Math.floor(kernelLimit / 8)));
}

/** One tenant's share of a WatchBudget, as a watcher holds it. */
export interface WatchAllowance {
  /** Takes one watch; false when the tenant's budget is spent. */
  take(): boolean;
  /** Gives back `count` watches. */
  give(count?: number): void;
}

export class WatchBudget {
  private readonly used = new Map<string, number>();

  constructor(
    /** Watches per tenant; 0 = no limit. */
    readonly perTenant: number = defaultWatchesPerTenant(),
  ) {}

  /** The allowance of one tenant (all its workspaces and watchers share it). */
  of(tenant: string): WatchAllowance {
    return {
      take: () => {
        const used = this.used.get(tenant) ?? 0;
        if (this.perTenant > 0 && used >= this.perTenant) return false;
        this.used.set(tenant, used + 1);
        return true;
      },
      give: (count = 1) => {
        const left = (this.used.get(tenant) ?? 0) - count;
        if (left > 0) this.used.set(tenant, left);
        else this.used.delete(tenant);
      },
    };
  }

  /** Watches a tenant holds now. */
  usedBy(tenant: string): number {
    return this.used.get(tenant) ?? 0;
  }
}
