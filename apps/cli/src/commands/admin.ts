// `lspmesh admin`: tenants, workspaces and API keys in the NATS control plane, which every gateway
// started with LSPMESH_CONTROL=nats follows live. Each change is computed from the bucket's current
// values, printed as a diff, written key by key and logged as one audit line (stderr, JSON).
import { readFile } from "node:fs/promises";
import {
  JETSTREAM_REPLICAS_SETTING,
  MAX_JETSTREAM_REPLICAS,
  NATS_CONNECTION_OPTIONS,
  natsConnectOptions,
  natsServers,
  WorkspaceUsageStore,
} from "@lspmesh/events";
import {
  AdminError,
  applyFile,
  type ControlChange,
  ControlPlaneStore,
  createJsonLogger,
  describeChange,
  expiredWorkspaces,
  expiryChanges,
  keyAdd,
  keyRemove,
  tenantPut,
  tenantRemove,
  workspacePut,
  workspaceRemove,
} from "@lspmesh/gateway";
import { integerSetting } from "@lspmesh/service-kit";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { cliNatsAuth } from "../natsCredentials.js";
import { parseCommandFlags, UsageError } from "../usage.js";
import { AdminFailure, credsIdentity, listCreds, mintCreds, parseDuration, revokeCreds } from "./adminCreds.js";

export const HELP = `usage: lspmesh admin <what> <action> [arguments] [options]

Changes tenants, workspaces and API keys in the NATS control plane (KV bucket lspmesh-control);
gateways run with LSPMESH_CONTROL=nats apply each change as soon as NATS delivers it, no restart.

  apply -f FILE [--dry-run]         make the control plane equal to FILE: the tenants file's format
                                    plus an optional "keys" list in the API keys file's format
  tenants list | show T | remove T
  tenants add T [--calls-per-second N] [--concurrent-calls N] [--workspace-pattern 'task-*']
                                    (again to change them; a pattern admits every matching workspace
                                    id without listing it: per-task and per-PR folders)
  workspaces list T | add T W [--languages L,…] [--create] [--idle-ttl 2h] | remove T W [--remove-folder]
                                    --create: the runners make the folder <root>/T/W when absent;
                                    --remove-folder: they delete it with the workspace;
                                    --idle-ttl: deleted once unused that long (its folder too with --create)
  workspaces expire [--dry-run]     delete the workspaces idle past their TTL now (a gateway with
                                    LSPMESH_ADMIN_NATS_CREDS does it every 30 s)
  keys list T | remove T ID
  keys add T ID [--scopes lsp:read,lsp:write] [--workspaces W,…]  prints the new token, once
  creds ci T | writer T | runner POOL [--tenants T,…] | gateway | admin
        [--out FILE] [--expires-in 30d]
                                    mints a NATS credential (creds file on stdout, or FILE); NATS
                                    in JWT mode (lspmesh nats-auth --jwt), nothing on the server
                                    changes. A runner pool's replicas share it and run with
                                    LSPMESH_RUNNER_ID=POOL.<name>; without --tenants it serves all
  creds list | revoke NAME|PUBLIC_KEY
                                    revoking closes the connections of every credential of that
                                    name (e.g. ci-acme, runner-typescript) and refuses them after

  --nats URL         NATS server, or a cluster's URLs comma-separated (default $LSPMESH_NATS_URL,
                     else nats://127.0.0.1:4222); LSPMESH_JETSTREAM_REPLICAS (1): copies of the
                     control-plane and usage buckets when this creates them (3 with a 3-node NATS)
  --nats-creds FILE  NATS credentials file (default $LSPMESH_NATS_CREDS; or LSPMESH_NATS_USER and
                     LSPMESH_NATS_PASSWORD, or LSPMESH_NATS_TOKEN): an identity that may write the
                     control plane (the "admin" user)
  --nats-trust DIR   the NATS trust directory, for creds (default $LSPMESH_NATS_TRUST_DIR)
  --dry-run          print what would change, change nothing
  --json             list and show as JSON

Removing a tenant deletes its keys; removing a workspace leaves a tombstone, so calls for it are
told it was deleted. Exit status: 0 done (or nothing to change), 2 refused (the message says why).`;

function parseFlags(args: string[]) {
  try {
    return parseCommandFlags({
      args,
      allowPositionals: true,
      options: {
        file: { type: "string", short: "f" },
        "dry-run": { type: "boolean" },
        json: { type: "boolean" },
        nats: { type: "string" },
        "nats-creds": { type: "string" },
        "calls-per-second": { type: "string" },
        "concurrent-calls": { type: "string" },
        "workspace-pattern": { type: "string" },
        languages: { type: "string" },
        scopes: { type: "string" },
        workspaces: { type: "string" },
        tenants: { type: "string" },
        out: { type: "string" },
        "expires-in": { type: "string" },
        "nats-trust": { type: "string" },
        create: { type: "boolean" },
        "idle-ttl": { type: "string" },
        "remove-folder": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

type Flags = ReturnType<typeof parseFlags>["values"];

export async function runAdminCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args);
  if (values.help) {
    console.log(HELP);
    return;
  }
  const [what, action, ...rest] = positionals;
  const request = requestOf(what, action, rest, values);
  try {
    await run(request, values);
  } catch (error) {
    if (!(error instanceof AdminFailure)) throw error;
    console.error(`lspmesh admin: ${error.message}`);
    process.exitCode = 1;
  }
}

/** The connection of the request under way (run() opens it): the usage bucket is read through it. */
let connection: NatsConnection | undefined;

async function readLastUses(_natsUrl: string): Promise<Map<string, number>> {
  if (!connection) return new Map();
  return (await WorkspaceUsageStore.open(connection, { replicas: jetstreamReplicas() })).lastUses();
}

async function run(request: Request, values: Flags): Promise<void> {
  const natsUrl = values.nats ?? process.env.LSPMESH_NATS_URL ?? "nats://127.0.0.1:4222";
  const replicas = jetstreamReplicas();
  const nc = await connect({
    servers: natsServers(natsUrl),
    name: "lspmesh-admin",
    ...natsConnectOptions(await cliNatsAuth(values["nats-creds"])),
    ...NATS_CONNECTION_OPTIONS,
    maxReconnectAttempts: 0,
  }).catch((error: unknown) => {
    throw new AdminFailure(`cannot reach NATS: ${(error as Error).message}`);
  });
  connection = nc;
  try {
    const store = await ControlPlaneStore.open(nc, { replicas }).catch((error: unknown) => {
      throw new AdminFailure(
        `cannot open the control plane (KV bucket lspmesh-control): ${(error as Error).message}; use the NATS admin identity`,
      );
    });
    const current = await store.values();
    await request(current, store, natsUrl);
  } catch (error) {
    if (error instanceof AdminError) {
      console.error(`lspmesh admin: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  } finally {
    await nc.close();
  }
}

/** LSPMESH_JETSTREAM_REPLICAS (default 1; a bad value is a SettingsError: exit 2). */
function jetstreamReplicas(): number {
  return integerSetting(
    process.env[JETSTREAM_REPLICAS_SETTING],
    JETSTREAM_REPLICAS_SETTING,
    1,
    1,
    MAX_JETSTREAM_REPLICAS,
  );
}

type Request = (current: ReadonlyMap<string, string>, store: ControlPlaneStore, natsUrl: string) => Promise<void>;

function requestOf(what: string | undefined, action: string | undefined, rest: string[], flags: Flags): Request {
  const args = (names: string[]) => {
    if (rest.length !== names.length)
      throw new UsageError(`${what} ${action} takes ${names.length ? names.join(" ") : "no arguments"}`);
    return rest;
  };
  const write = (plan: (current: ReadonlyMap<string, string>) => ControlChange[]): Request => {
    return async (current, store) => applyChanges(plan(current), store, flags["dry-run"] === true);
  };
  if (what === "creds") return credsRequest(action, rest, flags, args);
  switch (`${what ?? ""} ${action ?? ""}`) {
    case "apply ":
      return applyRequest(flags);
    case "tenants list":
      args([]);
      return async (current) => list(current, "tenants.", flags);
    case "tenants show": {
      const [tenant] = args(["TENANT"]);
      return async (current) => show(current, tenant!, flags);
    }
    case "tenants add": {
      const [tenant] = args(["TENANT"]);
      const limits = {
        ...positive(flags["calls-per-second"], "--calls-per-second", "callsPerSecond"),
        ...positive(flags["concurrent-calls"], "--concurrent-calls", "concurrentCalls"),
      };
      const pattern = flags["workspace-pattern"];
      return write((current) => tenantPut(current, tenant!, Object.keys(limits).length ? limits : undefined, pattern));
    }
    case "tenants remove": {
      const [tenant] = args(["TENANT"]);
      return write((current) => tenantRemove(current, tenant!));
    }
    case "workspaces list": {
      const [tenant] = args(["TENANT"]);
      return async (current) => list(current, `workspaces.${tenant}.`, flags);
    }
    case "workspaces add": {
      const [tenant, workspace] = args(["TENANT", "WORKSPACE"]);
      const languages = flags.languages?.split(",").filter(Boolean);
      const idleTtlSeconds = flags["idle-ttl"] ? parseDuration(flags["idle-ttl"], "--idle-ttl") : undefined;
      return write((current) =>
        workspacePut(current, tenant!, workspace!, languages, {
          create: flags.create === true,
          ...(idleTtlSeconds ? { idleTtlSeconds } : {}),
        }),
      );
    }
    case "workspaces remove": {
      const [tenant, workspace] = args(["TENANT", "WORKSPACE"]);
      return write((current) =>
        workspaceRemove(current, tenant!, workspace!, { removeFolder: flags["remove-folder"] === true }),
      );
    }
    case "workspaces expire": {
      args([]);
      return async (current, store, natsUrl) => {
        const lastUse = await readLastUses(natsUrl);
        await applyChanges(
          expiryChanges(current, expiredWorkspaces(current, lastUse, Date.now())),
          store,
          flags["dry-run"] === true,
        );
      };
    }
    case "keys list": {
      const [tenant] = args(["TENANT"]);
      return async (current) => list(current, `keys.${tenant}.`, flags);
    }
    case "keys add": {
      const [tenant, id] = args(["TENANT", "ID"]);
      const scopes = (flags.scopes ?? "lsp:read").split(",").filter(Boolean);
      const workspaces = flags.workspaces?.split(",").filter(Boolean);
      return async (current, store) => {
        const { token, changes } = keyAdd(current, tenant!, id!, scopes, workspaces);
        await applyChanges(changes, store, flags["dry-run"] === true, console.error);
        // The token alone on stdout (TOKEN=$(lspmesh admin keys add …)); only its hash is stored.
        if (!flags["dry-run"]) console.log(token);
      };
    }
    case "keys remove": {
      const [tenant, id] = args(["TENANT", "ID"]);
      return write((current) => keyRemove(current, tenant!, id!));
    }
    default:
      throw new UsageError(
        what
          ? `unknown admin request '${[what, action].filter(Boolean).join(" ")}'`
          : "say what to change, e.g. tenants add acme",
      );
  }
}

/** `creds list | revoke NAME | <kind> [ARG]` (adminCreds.ts). */
function credsRequest(
  action: string | undefined,
  rest: string[],
  flags: Flags,
  args: (names: string[]) => string[],
): Request {
  if (action === "list") {
    args([]);
    return async (current, store, natsUrl) => listCreds(flags, { current, store, natsUrl });
  }
  if (action === "revoke") {
    const [target] = args(["NAME"]);
    return async (current, store, natsUrl) => revokeCreds(target!, flags, { current, store, natsUrl });
  }
  const identity = credsIdentity(action ?? "", rest, flags.tenants);
  return async (current, store, natsUrl) => mintCreds(identity, flags, { current, store, natsUrl });
}

/** `apply -f FILE`: the bucket made equal to the file. */
function applyRequest(flags: Flags): Request {
  const file = flags.file;
  if (!file) throw new UsageError("apply needs -f FILE");
  return async (current, store) => {
    const text = await readFile(file, "utf8").catch((error: unknown) => {
      throw new AdminError("INVALID_ARGUMENT", `cannot read ${file}: ${(error as Error).message}`);
    });
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new AdminError("INVALID_ARGUMENT", `${file} is not JSON: ${(error as Error).message}`);
    }
    await applyChanges(applyFile(current, raw, file), store, flags["dry-run"] === true);
  };
}

async function applyChanges(
  changes: ControlChange[],
  store: ControlPlaneStore,
  dryRun: boolean,
  print: (line: string) => void = console.log,
): Promise<void> {
  if (changes.length === 0) {
    print("no changes");
    return;
  }
  for (const change of changes) print(describeChange(redacted(change)));
  if (dryRun) {
    print(`dry run: ${changes.length} change(s) not written`);
    return;
  }
  const audit = createJsonLogger({ service: "admin", level: "info" });
  const by = process.env.LSPMESH_NATS_USER ?? process.env.USER ?? "unknown";
  for (const change of changes) {
    if (change.value === undefined) await store.delete(change.key);
    else await store.put(change.key, change.value);
    audit.info("audit", { tool: "admin", key: change.key, change: change.value === undefined ? "delete" : "put", by });
  }
}

/** Key records hold hashes only, but a diff need not show even those. */
function redacted(change: ControlChange): ControlChange {
  if (!change.key.startsWith("keys.") || change.value === undefined) return change;
  const value = JSON.parse(change.value) as { sha256?: string };
  return { ...change, value: JSON.stringify({ ...value, sha256: `${value.sha256?.slice(0, 8)}…` }) };
}

function list(current: ReadonlyMap<string, string>, prefix: string, flags: Flags): void {
  const entries = [...current].filter(([key]) => key.startsWith(prefix)).sort(([a], [b]) => a.localeCompare(b));
  if (flags.json) {
    console.log(
      JSON.stringify(Object.fromEntries(entries.map(([key, value]) => [key.slice(prefix.length), JSON.parse(value)]))),
    );
    return;
  }
  if (entries.length === 0) console.log("(none)");
  for (const [key, value] of entries) console.log(`${key.slice(prefix.length)}\t${summary(value)}`);
}

function show(current: ReadonlyMap<string, string>, tenant: string, flags: Flags): void {
  const tenantValue = current.get(`tenants.${tenant}`);
  if (tenantValue === undefined)
    throw new AdminError("NOT_FOUND", `no tenant '${tenant}'; see lspmesh admin tenants list`);
  const of = (prefix: string) =>
    Object.fromEntries(
      [...current]
        .filter(([key]) => key.startsWith(prefix))
        .map(([key, value]) => [key.slice(prefix.length), JSON.parse(value) as unknown]),
    );
  const shown = {
    tenant,
    ...(JSON.parse(tenantValue) as object),
    workspaces: of(`workspaces.${tenant}.`),
    keys: Object.fromEntries(
      Object.entries(of(`keys.${tenant}.`)).map(([id, key]) => [id, { ...(key as object), sha256: undefined }]),
    ),
  };
  console.log(flags.json ? JSON.stringify(shown) : JSON.stringify(shown, null, 2));
}

function summary(value: string): string {
  const record = JSON.parse(value) as Record<string, unknown>;
  const parts: string[] = [];
  if (record.state) parts.push(String(record.state));
  if (record.limits) parts.push(`limits ${JSON.stringify(record.limits)}`);
  if (record.languages) parts.push(`languages ${(record.languages as string[]).join(",")}`);
  if (record.scopes) parts.push(`scopes ${(record.scopes as string[]).join(",")}`);
  if (record.workspaces) parts.push(`workspaces ${(record.workspaces as string[]).join(",")}`);
  return parts.join("  ") || "-";
}

function positive(text: string | undefined, flag: string, name: string): Record<string, number> {
  if (text === undefined) return {};
  const value = Number(text);
  if (!(value > 0)) throw new UsageError(`${flag} must be a positive number (got '${text}')`);
  return { [name]: value };
}
