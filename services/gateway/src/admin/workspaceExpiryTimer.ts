// A gateway holding the NATS admin identity deletes idle workspaces itself: every EXPIRY_CHECK_MS it
// reads the workspaces' last uses (KV `lspmesh-usage`) and has the admin service tombstone those past
// their idle TTL. Several such gateways may run: a workspace already deleted is skipped.
import { errorMessage, type Logger } from "@lspmesh/service-kit";
import type { AdminService } from "./adminService.js";

/** How often idle TTLs are checked, ms (30 s: TTLs are meant in minutes and hours). */
export const EXPIRY_CHECK_MS = 30_000;

export class WorkspaceExpiryTimer {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly admin: Pick<AdminService, "expireIdleWorkspaces">,
    private readonly readUsage: () => Promise<Map<string, number>>,
    private readonly logger: Logger,
    everyMs = EXPIRY_CHECK_MS,
  ) {
    this.timer = setInterval(() => this.check(), everyMs);
    this.timer.unref();
  }

  /** One check (also what the timer runs); a check under way is not started twice. */
  check(): Promise<void> {
    if (this.closed) return this.running;
    this.running = this.running.then(async () => {
      try {
        const expired = await this.admin.expireIdleWorkspaces(await this.readUsage());
        for (const { tenant, workspace, idleMs, removeFolder } of expired)
          this.logger.info("idle workspace deleted", {
            tenant,
            workspace,
            idleSeconds: Math.round(idleMs / 1000),
            removeFolder,
          });
      } catch (error) {
        this.logger.warn("idle workspaces not checked; trying again", { error: errorMessage(error) });
      }
    });
    return this.running;
  }

  /** Stops checking; waits for a check under way. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }
}
