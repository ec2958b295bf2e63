// Notices when a process of a language server's tree dies while the server itself lives on:
// typescript-language-server keeps running (and answering "nothing found") after the kernel's OOM
// killer takes its tsserver. The tree is the server's process group (see serverLaunch.ts); any
// member seen alive and then gone breaks it, so only servers whose helpers live as long as they
// do may be watched (languages opt in with watchProcessTree). The group leader itself is left to
// the process's own exit handling.
// It also notices a process of the tree that is stopped (SIGSTOP, a debugger): such a server
// accepts requests and never answers them, whatever the liveness probe reaches. Every server is
// watched for that, the group leader included.
import { type ProcStat, readProcesses } from "./processGroups.js";

/** How often the tree is checked while the server runs, in ms (default 2 000). */
export const DEFAULT_TREE_CHECK_MS = 2_000;

/**
 * Age of a /proc read the periodic check may reuse, ms (default 1 000): every server's periodic
 * check shares one read a second at most. A check asked for (check()) reads /proc now.
 */
const SHARED_READ_MS = 1_000;

/** Scans in a row a process must be seen stopped before it counts (default 2: 2–4 s). */
export const STOPPED_SCANS = 2;

export interface TreeWatchHandlers {
  /** A member seen alive is gone; only reported with `watchLosses`. */
  onLoss?: (lost: LostProcess) => void;
  /** A member (leader included) was seen stopped (state T or t) STOPPED_SCANS scans in a row. */
  onStopped?: (stopped: LostProcess) => void;
}

export interface LostProcess {
  pid: number;
  /** Its command name when it was last seen (e.g. "node", "tsserver"). */
  name: string;
}

export class ProcessTreeWatch {
  /** pid → its name, for every member seen alive. */
  private readonly members = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<LostProcess | undefined> | undefined;
  private lost: LostProcess | undefined;
  /** The last read of /proc judged. */
  private lastTable: readonly ProcStat[] | undefined;
  /** pid → scans in a row it was seen stopped. */
  private readonly stoppedScans = new Map<number, number>();

  constructor(
    private readonly pgid: number,
    private readonly handlers: TreeWatchHandlers,
  ) {}

  /** Checks every `intervalMs` until closed or a loss is found. */
  start(intervalMs = DEFAULT_TREE_CHECK_MS): void {
    if (this.timer || this.lost) return;
    this.timer = setInterval(() => void this.check(SHARED_READ_MS), intervalMs);
    this.timer.unref();
    void this.check();
  }

  /**
   * Checks (one check at a time) on a read of /proc started now, or at most `maxAgeMs` ago;
   * resolves with the loss, if any.
   */
  check(maxAgeMs = 0): Promise<LostProcess | undefined> {
    if (this.lost) return Promise.resolve(this.lost);
    this.checking ??= this.scan(maxAgeMs).finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async scan(maxAgeMs: number): Promise<LostProcess | undefined> {
    const table = await readProcesses(maxAgeMs);
    // A read this watch already judged (shared with other watches) counts once, stopped or not.
    if (table === this.lastTable) return this.lost;
    this.lastTable = table;
    const group = table.filter((process) => process.pgid === this.pgid && process.state !== "Z");
    if (this.noteStopped(group)) return this.lost;
    const alive = group.filter((process) => process.pid !== this.pgid);
    const now = new Set(alive.map((process) => process.pid));
    for (const [pid, name] of this.members) {
      if (now.has(pid)) continue;
      this.members.delete(pid);
      if (!this.lost && this.timer !== undefined && this.handlers.onLoss) {
        this.lost = { pid, name };
        this.close();
        this.handlers.onLoss(this.lost);
      }
    }
    for (const process of alive) this.members.set(process.pid, process.name);
    return this.lost;
  }

  /** Counts stopped scans; reports (and ends the watch) at STOPPED_SCANS. True when reported. */
  private noteStopped(group: ReadonlyArray<{ pid: number; name: string; state: string }>): boolean {
    const stopped = group.filter((process) => process.state === "T" || process.state === "t");
    for (const pid of this.stoppedScans.keys()) {
      if (!stopped.some((process) => process.pid === pid)) this.stoppedScans.delete(pid);
    }
    for (const process of stopped) {
      const scans = (this.stoppedScans.get(process.pid) ?? 0) + 1;
      this.stoppedScans.set(process.pid, scans);
      if (scans >= STOPPED_SCANS && !this.lost && this.timer !== undefined && this.handlers.onStopped) {
        this.lost = { pid: process.pid, name: process.name };
        this.close();
        this.handlers.onStopped(this.lost);
        return true;
      }
    }
    return false;
  }

  /** Stops checking. Idempotent. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
