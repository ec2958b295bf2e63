// Background indexing at low priority: one file at a time for the whole runner, taking turns
// between workspaces, each file only once no agent request is in flight (or after quietWaitMs),
// and yielding to the event loop between files.
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { waitAtMost } from "@lspmesh/service-kit";
import type { AgentActivity } from "./agentActivity.js";

/** Longest close() waits for the file being indexed, ms. */
const CLOSE_WAIT_MS = 1_000;

export interface IndexTurns {
  /** Indexes one file; false when the workspace has nothing left to do. */
  step(): Promise<boolean>;
}

export class IndexScheduler {
  private readonly ready = new Set<IndexTurns>();
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly activity: AgentActivity,
    /** Longest a file waits for agents' requests to end before it is indexed anyway, ms. */
    private readonly quietWaitMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The workspace has work: it gets turns until its step() says it is done. */
  wake(workspace: IndexTurns): void {
    if (this.closed) return;
    this.ready.add(workspace);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.closed) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.ready.size > 0) this.kick();
    });
  }

  /** Stops giving turns; waits for the file being indexed, at most CLOSE_WAIT_MS (a hung server must not hold up shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    this.ready.clear();
    await waitAtMost(this.running, CLOSE_WAIT_MS);
  }

  private async run(): Promise<void> {
    await yieldToEventLoop(); // every workspace woken in this turn of the event loop takes part
    while (this.ready.size > 0 && !this.closed) {
      for (const workspace of [...this.ready]) {
        if (this.closed) return;
        await this.activity.quiet(this.quietWaitMs);
        try {
          if (!(await workspace.step())) this.ready.delete(workspace);
        } catch (error) {
          this.ready.delete(workspace);
          this.onError(error);
        }
        await yieldToEventLoop();
      }
    }
  }
}
