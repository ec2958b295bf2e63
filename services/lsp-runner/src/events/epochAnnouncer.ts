// Tells gateways (`lspmesh.epoch.<tenant>.<workspace>`) that what a workspace's language servers
// know moved on, so that the answers they remembered are dropped. The moves of one turn of the
// event loop (a query opening several documents, an edit changing several files) become one
// announcement per (workspace, language), published before anything awaited after them runs: an
// edit's answer, or a writer's reply, always follows the announcement of what it changed.
import type { EpochMessage } from "@lspmesh/events";
import type { RunnerEventBus } from "./eventBus.js";

type Due = Pick<EpochMessage, "tenant" | "workspace" | "language">;

export class EpochAnnouncer {
  private readonly due = new Map<string, Due>();
  private scheduled = false;

  constructor(
    private readonly bus: Pick<RunnerEventBus, "publishEpoch">,
    private readonly runnerId: string,
  ) {}

  /** The workspace's `language` server (or, with "", something in the workspace) moved on. */
  announce(tenant: string, workspace: string, language: string): void {
    const key = `${tenant}/${workspace}/${language}`;
    if (!this.due.has(key)) this.due.set(key, { tenant, workspace, language });
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.publish());
  }

  private publish(): void {
    this.scheduled = false;
    const at = Date.now();
    for (const due of this.due.values()) this.bus.publishEpoch({ v: 1, ...due, runner: this.runnerId, at });
    this.due.clear();
  }
}
