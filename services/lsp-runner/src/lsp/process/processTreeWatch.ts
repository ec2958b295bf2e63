// Notices when a process of a language server's tree dies while the server itself lives on:
// typescript-language-server keeps running (and answering "nothing found") after the kernel's OOM
// killer takes its tsserver. The tree is the server's process group (see serverLaunch.ts); any
// member seen alive and then gone breaks it, so only servers whose helpers live as long as they
// do may be watched (languages opt in with watchProcessTree). The group leader itself is left to
// the process's own exit handling.
import { processesInGroups } from "./processGroups.js";

/** How often the tree is checked while the server runs, in ms (default 2 000). */
export const DEFAULT_TREE_CHECK_MS = 2_000;

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

  constructor(
    private readonly pgid: number,
    private readonly onLoss: (lost: LostProcess) => void,
  ) {}

  /** Checks every `intervalMs` until closed or a loss is found. */
  start(intervalMs = DEFAULT_TREE_CHECK_MS): void {
    if (this.timer || this.lost) return;
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
    void this.check();
  }

  /** Checks now (one check at a time); resolves with the loss, if any. */
  check(): Promise<LostProcess | undefined> {
    if (this.lost) return Promise.resolve(this.lost);
    this.checking ??= this.scan().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async scan(): Promise<LostProcess | undefined> {
    const alive = (await processesInGroups(new Set([this.pgid]))).filter(
      (process) => process.state !== "Z" && process.pid !== this.pgid,
    );
    const now = new Set(alive.map((process) => process.pid));
    for (const [pid, name] of this.members) {
      if (now.has(pid)) continue;
      this.members.delete(pid);
      if (!this.lost && this.timer !== undefined) {
        this.lost = { pid, name };
        this.close();
        this.onLoss(this.lost);
      }
    }
    for (const process of alive) this.members.set(process.pid, process.name);
    return this.lost;
  }

  /** Stops checking. Idempotent. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
