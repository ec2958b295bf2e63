// Carries out admin API requests against the control-plane bucket, as `lspmesh admin` does: reads
// through the gateway's own (read-only) NATS identity; a change is planned from the bucket's current
// values, written key by key through the separate admin identity, one audit line per key written.
import { errorMessage, type Logger } from "@lspmesh/service-kit";
import type { Principal } from "../auth/principal.js";
import { type AdminAnswer, AdminRefusal } from "./adminAnswer.js";
import { planOf, refuseLockout } from "./adminPlans.js";
import { type AdminRequest, type AdminWrite, isWrite } from "./adminRequest.js";
import { diffLines, keysView, tenantsView, tenantView, workspacesView, workspaceView } from "./adminViews.js";
import type { ControlChange, ControlValues } from "./controlPlaneChanges.js";
import { type ExpiredWorkspace, expiredWorkspaces, expiryChanges } from "./workspaceExpiry.js";

/** The bucket's current values (ControlPlaneStore). */
export interface ControlPlaneReader {
  values(): Promise<Map<string, string>>;
}

export interface ControlPlaneWriter extends ControlPlaneReader {
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The bucket opened as the NATS admin identity, connected when first needed (adminWriter.ts). */
export interface ControlPlaneWriterSource {
  open(): Promise<ControlPlaneWriter>;
  /** Idempotent. */
  close(): Promise<void>;
}

export interface AdminServiceOptions {
  /** The bucket as the gateway's own identity reads it. */
  reader: ControlPlaneReader;
  /** The admin identity's write path (LSPMESH_ADMIN_NATS_CREDS); absent = changes answer 503. Closed in close(). */
  writer?: ControlPlaneWriterSource | undefined;
  /** Audit lines of the keys written. */
  auditLogger: Logger;
}

export const WRITES_UNAVAILABLE =
  "this gateway may read the control plane but not change it: set LSPMESH_ADMIN_NATS_CREDS to the creds file of the NATS admin identity (lspmesh admin creds admin) and restart it, or use lspmesh admin; dry_run=true works without it";

export class AdminService {
  /** Changes run one at a time: each is planned from the values the previous one left. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: AdminServiceOptions) {}

  /** It holds the admin identity's write path (LSPMESH_ADMIN_NATS_CREDS). */
  get canWrite(): boolean {
    return this.options.writer !== undefined;
  }

  /** Answers `request` for `caller` (who holds lspmesh:admin); throws AdminRefusal or AdminError. */
  async handle(request: AdminRequest, caller: Principal): Promise<AdminAnswer> {
    if (!isWrite(request)) return { status: 200, body: viewOf(request, await readValues(this.options.reader)) };
    if (request.dryRun) return this.change(request, caller, this.options.reader);
    const writer = this.options.writer;
    if (!writer) throw new AdminRefusal(503, "writes_unavailable", WRITES_UNAVAILABLE);
    const run = async () => this.change(request, caller, await openWriter(writer));
    const done = this.writes.then(run, run);
    this.writes = done.catch(() => {});
    return done;
  }

  /**
   * Deletes the workspaces idle past their TTL (workspaceExpiry.ts) through the admin identity, in
   * the same queue as the API's changes; their names. Without the admin identity: none.
   */
  async expireIdleWorkspaces(lastUse: ReadonlyMap<string, number>, now = Date.now()): Promise<ExpiredWorkspace[]> {
    const writer = this.options.writer;
    if (!writer) return [];
    const run = async () => {
      const store = await writer.open();
      const current = await store.values();
      const expired = expiredWorkspaces(current, lastUse, now);
      const changes = expiryChanges(current, expired);
      await this.write(changes, store, { subject: "idle-ttl" } as Principal);
      return expired;
    };
    const done = this.writes.then(run, run);
    this.writes = done.catch(() => {});
    return done;
  }

  /** Closes the admin identity's connection. Idempotent. */
  close(): Promise<void> {
    return this.options.writer?.close() ?? Promise.resolve();
  }

  private async change(
    request: AdminWrite,
    caller: Principal,
    store: ControlPlaneReader | ControlPlaneWriter,
  ): Promise<AdminAnswer> {
    const { changes, token } = planOf(request, await readValues(store));
    refuseLockout(changes, caller);
    const body = { changes: diffLines(changes) };
    if (request.dryRun) return { status: 200, body: { ...body, dry_run: true } };
    await this.write(changes, store as ControlPlaneWriter, caller);
    if (request.kind !== "keys.add") return { status: 200, body };
    // The token, once: only its hash is stored.
    const { tenant, id, scopes, workspaces } = request;
    return { status: 201, body: { tenant, id, token, scopes, ...(workspaces ? { workspaces } : {}), ...body } };
  }

  private async write(changes: readonly ControlChange[], store: ControlPlaneWriter, caller: Principal): Promise<void> {
    for (const [index, change] of changes.entries()) {
      try {
        if (change.value === undefined) await store.delete(change.key);
        else await store.put(change.key, change.value);
      } catch (error) {
        throw new AdminRefusal(
          503,
          "write_failed",
          `writing ${change.key} failed after ${index} of ${changes.length} change(s): ${errorMessage(error)}${permissionHint(error)}; send the request again (it picks up where this one stopped)`,
        );
      }
      this.options.auditLogger.info("audit", {
        tool: "admin",
        key: change.key,
        change: change.value === undefined ? "delete" : "put",
        by: caller.subject,
      });
    }
  }
}

function viewOf(request: Exclude<AdminRequest, AdminWrite>, current: ControlValues): Record<string, unknown> {
  switch (request.kind) {
    case "tenants.list":
      return tenantsView(current);
    case "tenants.show":
      return tenantView(current, request.tenant);
    case "workspaces.list":
      return workspacesView(current, request.tenant);
    case "workspaces.show":
      return workspaceView(current, request.tenant, request.workspace);
    case "keys.list":
      return keysView(current, request.tenant);
  }
}

async function readValues(store: ControlPlaneReader): Promise<Map<string, string>> {
  try {
    return await store.values();
  } catch (error) {
    throw new AdminRefusal(503, "control_plane_unavailable", `cannot read the control plane: ${errorMessage(error)}`);
  }
}

async function openWriter(writer: ControlPlaneWriterSource): Promise<ControlPlaneWriter> {
  try {
    return await writer.open();
  } catch (error) {
    throw new AdminRefusal(
      503,
      "writes_unavailable",
      `cannot open the control plane as the NATS admin identity (LSPMESH_ADMIN_NATS_CREDS): ${errorMessage(error)}${permissionHint(error)}`,
    );
  }
}

/** A NATS permission error means the creds are another identity's. */
function permissionHint(error: unknown): string {
  return /permission|authorization/i.test(errorMessage(error))
    ? " (LSPMESH_ADMIN_NATS_CREDS must be the NATS admin identity's creds: lspmesh admin creds admin)"
    : "";
}
