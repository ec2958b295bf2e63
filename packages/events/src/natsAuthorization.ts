// The NATS permissions of every lspmesh identity. One source for both ways of deploying them: the
// user JWTs `lspmesh admin creds` mints (natsJwt.ts, the shipped manifests and chart) and the static
// `authorization { users: [...] }` block `lspmesh nats-auth --runners … --tenants …` prints; the test
// clusters run with both, so what is tested is what is deployed. Everything not listed is denied: a
// client without credentials cannot connect.
//
// - `gateway`: reads the runner registry (KV `lspmesh-runners`), the runners' claims (KV
//   `lspmesh-runner-claims`) and the control plane (KV `lspmesh-control`), never writes them, and
//   reads the symbol indexes (KV `lspmesh-symbols-<tenant>`) of every tenant listed, and writes
//   workspaces' last uses (KV `lspmesh-usage`, for idle TTLs) and nothing else; hears every
//   workspace's epochs (`lspmesh.epoch.>`, no content: when to drop remembered answers).
// - `<runner id>`: writes only its own registry key and its claims on the tenants it was issued,
//   reads the registry entries and claims of its own identity (a pool's replicas; every runner's
//   when it serves every tenant: handoff, registryView), publishes diagnostics (stream LSPMESH_DIAG,
//   which it may create but neither read the state of nor change), status and epochs for the tenants it serves, receives their file-change events and answers them,
//   creates, writes and reads the symbol index buckets of the tenants it serves, and follows its
//   tenants' workspace records in the control plane (KV `lspmesh-control`; never its API keys, never a write).
// - `ci-<tenant>` (CI bots, `lspmesh diagnostics --watch`): reads only `lspmesh.diag.<tenant>.>`,
//   `lspmesh.status.<tenant>.*` and its tenant's symbol index bucket.
// - `writer-<tenant>` (agent sandboxes, sync services): announces file changes on
//   `lspmesh.fs.<tenant>.*` and reads the runners' answers.
// - `admin` (optional): everything; for operators' tooling, never given to a service.
// Every identity reads replies only on its own inbox prefix `_INBOX_<user>` (the client option
// inboxPrefix; lspmesh's services set it from LSPMESH_NATS_USER), never another's.
import {
  CONTROL_BUCKET,
  CONTROL_STREAM,
  controlKeys,
  WORKSPACE_USAGE_BUCKET,
  WORKSPACE_USAGE_STREAM,
} from "./controlPlane.js";
import { inboxPrefixOf } from "./natsAuth.js";
import {
  DIAGNOSTICS_STREAM,
  diagnosticsWildcard,
  epochWildcard,
  fileEventsWildcard,
  RUNNER_CLAIMS_BUCKET,
  RUNNER_REGISTRY_BUCKET,
  runnerClaimKey,
  statusWildcard,
} from "./subjects.js";
import { symbolIndexBucket, symbolIndexStream } from "./symbolIndex.js";

export interface NatsAuthorizationSpec {
  /** Runner ids (LSPMESH_RUNNER_ID), each with the tenants it serves (absent = every tenant). */
  runners: ReadonlyArray<{ id: string; tenants?: readonly string[] }>;
  /** Tenants with a CI reader and a writer identity. */
  tenants: readonly string[];
  /** Include an `admin` user with every permission (operators' tooling, test harnesses). */
  admin?: boolean;
  /**
   * The password written for a user: a literal, or a nats-server variable reference such as
   * `$NATS_PASSWORD_GATEWAY` (resolved from the server's environment, e.g. a Kubernetes Secret).
   */
  password: (user: string) => string;
}

export interface NatsUserPermissions {
  user: string;
  publish: string[];
  subscribe: string[];
  /** Denied even where `publish` allows (JWT credentials only: see runnerPermissions). */
  publishDeny?: string[];
  /** May answer requests it received (allow_responses): runners answer file-change announcements. */
  responses?: boolean;
}

const REGISTRY_STREAM = `KV_${RUNNER_REGISTRY_BUCKET}`;
const CLAIMS_STREAM = `KV_${RUNNER_CLAIMS_BUCKET}`;
/** What a gateway writes of workspaces' last uses: open or create the bucket, put its keys. */
export const WORKSPACE_USAGE_WRITER = [
  `$JS.API.STREAM.INFO.${WORKSPACE_USAGE_STREAM}`,
  `$JS.API.STREAM.CREATE.${WORKSPACE_USAGE_STREAM}`,
  `$KV.${WORKSPACE_USAGE_BUCKET}.>`,
] as const;

/** The KV streams a gateway opens (creating them when absent) and reads: registry, claims, control plane. */
export const REGISTRY_READER_STREAMS = [REGISTRY_STREAM, CLAIMS_STREAM, CONTROL_STREAM] as const;

/** The user names of each identity (also their inbox prefixes, `_INBOX_<user>`). */
export const NATS_USERS = {
  gateway: "gateway",
  /** A runner is its runner id (LSPMESH_RUNNER_ID; a StatefulSet pod name). */
  runner: (id: string) => id,
  ci: (tenant: string) => `ci-${tenant}`,
  writer: (tenant: string) => `writer-${tenant}`,
  admin: "admin",
} as const;

/**
 * JetStream API subjects to watch or list a KV bucket's keys (ordered consumers) and read single
 * keys, once its stream is open. A watch of more than a few hundred kilobytes is paced by flow
 * control: the server stalls it until the client answers on `$JS.FC.<stream>.…`.
 */
function kvWatcher(stream: string): string[] {
  return [
    `$JS.FC.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
  ];
}

/** JetStream API subjects to open a KV bucket's stream (created when absent) and read it with a watcher. */
function registryReader(stream: string): string[] {
  return [...registryOpener(stream), ...kvWatcher(stream)];
}

/**
 * JetStream API subjects to create or open a registry bucket's stream without reading it: a runner
 * writes its own keys only, and reads only what registryView lets it.
 */
function registryOpener(stream: string): string[] {
  return ["$JS.API.INFO", `$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`];
}

/**
 * JetStream API subjects to follow the registry entries and claims a runner needs to know who
 * takes its warm sessions over when it drains (handoff, docs/architecture.md). Issued for some
 * tenants, it watches only the keys of its own identity (`runnerIds`: a pool's replicas share the
 * credential, `<pool>.*`), so it learns nothing its identity could not write itself: no other
 * pool's address, tenants or sessions. Serving every tenant, it watches every runner's.
 */
function registryView(runnerIds: string, dedicated: boolean): string[] {
  if (!dedicated) return [...kvWatcher(REGISTRY_STREAM), ...kvWatcher(CLAIMS_STREAM)];
  return [
    `$JS.API.CONSUMER.CREATE.${REGISTRY_STREAM}.*.$KV.${RUNNER_REGISTRY_BUCKET}.${runnerIds}`,
    `$JS.API.CONSUMER.CREATE.${CLAIMS_STREAM}.*.$KV.${RUNNER_CLAIMS_BUCKET}.*.${runnerIds}`,
    ...[REGISTRY_STREAM, CLAIMS_STREAM].flatMap((stream) => [
      `$JS.API.CONSUMER.INFO.${stream}.*`,
      `$JS.API.CONSUMER.DELETE.${stream}.*`,
    ]),
  ];
}

/**
 * JetStream API subjects to read one tenant's symbol index bucket: open it (stream info) and
 * watch or list its keys, read single keys. One bucket per tenant: NATS subjects have no
 * partial-token wildcards, so each tenant's bucket is named.
 */
function symbolIndexReader(tenant: string): string[] {
  const stream = symbolIndexStream(tenant);
  return [`$JS.API.STREAM.INFO.${stream}`, ...kvWatcher(stream)];
}

/** What the runner serving a tenant adds: create the bucket and write (put, purge) its keys. */
function symbolIndexWriter(tenant: string): string[] {
  return [
    ...symbolIndexReader(tenant),
    `$JS.API.STREAM.CREATE.${symbolIndexStream(tenant)}`,
    `$KV.${symbolIndexBucket(tenant)}.>`,
  ];
}

/**
 * JetStream API subjects to follow the workspace records of the control plane (the runner's
 * ControlPlaneWatch): open the bucket (stream info) and watch it through a consumer filtered to
 * these tenants' workspace keys, `workspaces.<tenant>.*` (the filter is part of the subject since
 * NATS 2.9, so a filter on another tenant's or on the API keys is refused), or to `workspaces.>`
 * for a runner serving every tenant; INFO and DELETE for the ordered consumer's own upkeep (a reset
 * deletes the old one). No single-key read (DIRECT.GET and MSG.GET carry no filter a permission
 * could scope) and no write.
 */
function controlPlaneWorkspaceReader(tenants: readonly string[] | undefined): string[] {
  const filters = tenants?.length ? tenants.map(controlKeys.tenantWorkspaces) : ["workspaces.>"];
  return [
    `$JS.API.STREAM.INFO.${CONTROL_STREAM}`,
    ...filters.map((filter) => `$JS.API.CONSUMER.CREATE.${CONTROL_STREAM}.*.$KV.${CONTROL_BUCKET}.${filter}`),
    `$JS.API.CONSUMER.INFO.${CONTROL_STREAM}.*`,
    `$JS.API.CONSUMER.DELETE.${CONTROL_STREAM}.*`,
  ];
}

/**
 * What a runner identity may do. `runnerIds` is its registry id, or a subject pattern of ids
 * (`<pool>.*`: every replica of a pool shares one credential). `allTenants` names the symbol index
 * buckets of a runner serving every tenant; "any" (credentials minted before the tenants are known)
 * opens every stream's API and every bucket's keys but the control plane's (NATS subjects cannot
 * scope a bucket name by prefix).
 */
export function runnerPermissions(runner: {
  user: string;
  runnerIds: string;
  tenants?: readonly string[] | undefined;
  allTenants: readonly string[] | "any";
}): Omit<NatsUserPermissions, "user"> {
  const dedicated = runner.tenants?.length ? runner.tenants : undefined;
  const tenants = dedicated ?? [undefined];
  const indexes =
    dedicated || runner.allTenants !== "any"
      ? (dedicated ?? (runner.allTenants as readonly string[])).flatMap(symbolIndexWriter)
      : ["$JS.API.STREAM.CREATE.*", "$JS.API.STREAM.INFO.*", ...kvWatcher("*"), "$KV.*.>"];
  return {
    publish: [
      ...registryOpener(REGISTRY_STREAM),
      `$KV.${RUNNER_REGISTRY_BUCKET}.${runner.runnerIds}`,
      ...registryOpener(CLAIMS_STREAM).slice(1),
      ...registryView(runner.runnerIds, dedicated !== undefined),
      // Create the stream when absent; never read its state (STREAM.INFO lists every tenant's
      // subjects) nor change its settings (STREAM.UPDATE: every tenant's retention).
      `$JS.API.STREAM.CREATE.${DIAGNOSTICS_STREAM}`,
      // No purge: NATS cannot scope one to a runner's tenants (the filter is in the request
      // body). A deleted file's diagnostics are replaced by a `deleted` message instead.
      // Its claims: only the tenants it was issued for; issued for every tenant, any claim of
      // its own (`_any`, or the tenants a trusting group declares with LSPMESH_TENANTS).
      ...(dedicated
        ? dedicated.map((tenant) => `$KV.${RUNNER_CLAIMS_BUCKET}.${runnerClaimKey(tenant, runner.runnerIds)}`)
        : [`$KV.${RUNNER_CLAIMS_BUCKET}.*.${runner.runnerIds}`]),
      ...tenants.map((tenant) => diagnosticsWildcard(tenant)),
      ...tenants.map((tenant) => statusWildcard(tenant)),
      ...tenants.map((tenant) => epochWildcard(tenant)),
      // Symbol indexes of the tenants it serves (a shared pool: every tenant listed). After a
      // restart a shared pool's runner lists the buckets to take up the workspaces its stored
      // indexes name; a dedicated one opens its tenants' buckets by name.
      ...(dedicated ? [] : ["$JS.API.STREAM.LIST"]),
      ...indexes,
      // Its tenants' workspace records: a deleted workspace's servers, index and diagnostics go.
      ...controlPlaneWorkspaceReader(dedicated),
    ],
    // Never the control plane's keys, whatever a wildcard above allows.
    ...(!dedicated && runner.allTenants === "any" ? { publishDeny: [`$KV.${CONTROL_BUCKET}.>`] } : {}),
    subscribe: [`${inboxPrefixOf(runner.user)}.>`, ...tenants.map((tenant) => fileEventsWildcard(tenant))],
    responses: true,
  };
}

export function natsUserPermissions(spec: Omit<NatsAuthorizationSpec, "password">): NatsUserPermissions[] {
  const users: NatsUserPermissions[] = [
    {
      user: NATS_USERS.gateway,
      publish: [
        ...registryReader(REGISTRY_STREAM),
        ...registryReader(CLAIMS_STREAM).slice(1),
        // The control plane (tenants, workspaces, API-key hashes), read only; `admin` writes it.
        ...registryReader(CONTROL_STREAM).slice(1),
        // Workspaces' last uses (for idle TTLs): written, never read.
        ...WORKSPACE_USAGE_WRITER,
        ...spec.tenants.flatMap(symbolIndexReader),
      ],
      // Workspaces' epochs: remembered answers are dropped when a workspace moves on.
      subscribe: [`${inboxPrefixOf(NATS_USERS.gateway)}.>`, epochWildcard()],
    },
  ];
  for (const runner of spec.runners) {
    const user = NATS_USERS.runner(runner.id);
    users.push({
      user,
      ...runnerPermissions({ user, runnerIds: runner.id, tenants: runner.tenants, allTenants: spec.tenants }),
    });
  }
  for (const tenant of spec.tenants) {
    const user = NATS_USERS.ci(tenant);
    const diagnostics = diagnosticsWildcard(tenant);
    users.push({
      user,
      publish: [
        "$JS.API.INFO",
        // An ordered consumer filtered to this tenant's subjects (the filter is part of the
        // subject since NATS 2.9, so another tenant's filter is refused), then reading from it.
        `$JS.API.CONSUMER.CREATE.${DIAGNOSTICS_STREAM}.*.${diagnostics}`,
        `$JS.API.CONSUMER.INFO.${DIAGNOSTICS_STREAM}.*`,
        `$JS.API.CONSUMER.DELETE.${DIAGNOSTICS_STREAM}.*`,
        `$JS.API.CONSUMER.MSG.NEXT.${DIAGNOSTICS_STREAM}.*`,
        `$JS.API.DIRECT.GET.${DIAGNOSTICS_STREAM}.${diagnostics}`,
        ...symbolIndexReader(tenant),
      ],
      subscribe: [`${inboxPrefixOf(user)}.>`, statusWildcard(tenant), diagnostics],
    });
    const writer = NATS_USERS.writer(tenant);
    users.push({
      user: writer,
      publish: [fileEventsWildcard(tenant)],
      subscribe: [`${inboxPrefixOf(writer)}.>`],
    });
  }
  if (spec.admin) users.push({ user: NATS_USERS.admin, publish: [">"], subscribe: [">"] });
  return users;
}

/** The `authorization { … }` block for nats-server's configuration file. */
export function natsAuthorizationConfig(spec: NatsAuthorizationSpec): string {
  const quote = (text: string) => JSON.stringify(text);
  const password = (user: string) => {
    const value = spec.password(user);
    // `$NAME` is a nats-server variable, written bare; anything else is a quoted literal.
    return /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(value) ? value : quote(value);
  };
  const list = (subjects: string[]) => `[${subjects.map(quote).join(", ")}]`;
  const users = natsUserPermissions(spec).map(
    ({ user, publish, subscribe, responses }) =>
      `    {\n      user: ${quote(user)}\n      password: ${password(user)}\n      permissions: {\n        publish: { allow: ${list(publish)} }\n        subscribe: { allow: ${list(subscribe)} }${responses ? "\n        allow_responses: true" : ""}\n      }\n    }`,
  );
  return `authorization {\n  users: [\n${users.join(",\n")}\n  ]\n}\n`;
}
