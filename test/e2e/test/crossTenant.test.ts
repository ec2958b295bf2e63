// Tenants cannot reach each other, below the gateway's checks too. Tenant acme's workspace tries
// every way a language server could be led into tenant globex's tree, and acme then calls every
// read and write tool through the gateway with the official MCP client, races a folder swap
// against edits, adds links after indexing, plants FIFOs and runs its own language server: the
// attacks are the test kit's (crossTenantAttacks.ts), shared with the same suite against the
// runner image under podman (test/deploy/podman/crossTenant.test.ts). No answer may hold globex's
// canary, and globex's tree must be byte for byte what it was.
// Deployments here: tenant workers (Landlock alone; Landlock inside bubblewrap) — one runner for
// both tenants on a shared workspaces root — and tenant-pinned runners without a sandbox, each
// seeing only its own tenant's folder (as separate pods mounting only their tenant's volume would;
// emulated by running each runner under bubblewrap with the other tenant's folder hidden).
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NATS_USERS } from "@lspmesh/events";
import { landlockAbi } from "@lspmesh/lsp-runner";
import {
  attackerLanguage,
  type CallTool,
  type CrossTenantDeployment,
  type CrossTenantWorkspaces,
  clusterSecretFile,
  fifoAttack,
  folderSwapRace,
  type GatewayProcess,
  isFaultsTier,
  LANGUAGE_SERVER_ATTACKER,
  languageServerAttack,
  lateSymlinkAttack,
  localAttackControl,
  type NatsServer,
  needs,
  RACE_ATTEMPTS,
  type RunnerProcess,
  type RunnerProcessOptions,
  readToolsAttack,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  type ToolResult,
  UNPRIVILEGED_USER,
  waitFor,
  writeCrossTenantWorkspaces,
  writeTenancyFiles,
  writeToolsAttack,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const CANARY = `GLOBEX-CANARY-${randomBytes(6).toString("hex")}`;
/** TypeScript and Python, and acme's own language server for `.evil` files. */
const LANGUAGES = {
  languages: {
    ...Object.fromEntries(["go", "cpp", "rust"].map((id) => [id, { enabled: false }])),
    evil: attackerLanguage(process.execPath, LANGUAGE_SERVER_ATTACKER),
  },
};

interface Deployment {
  gateway: GatewayProcess;
  runners: RunnerProcess[];
  nats: NatsServer;
  /** Acme's API key (read and write). */
  token: string;
  /** Globex's API key (read and write). */
  globexToken: string;
  workspaces: CrossTenantWorkspaces;
  close(): Promise<void>;
}

type Mode = "sandboxed-shared" | "workers-landlock" | "pinned-unsandboxed" | "control-unsandboxed-shared";

/** As root, Landlock alone does not scope /proc/<pid>/environ: workers then run as nobody. */
const asRoot = process.getuid?.() === 0;

async function deploy(mode: Mode): Promise<Deployment> {
  const base = mkdtempSync(join(tmpdir(), `lspmesh-xtenant-${mode}-`));
  // Shared: one workspaces root. Pinned: one root per tenant, each runner seeing only its own.
  const shared = mode !== "pinned-unsandboxed";
  const acmeRoot = join(base, shared ? "workspaces" : "acme-volume");
  const globexRoot = join(base, shared ? "workspaces" : "globex-volume");
  const unprivilegedWorkers = mode === "workers-landlock" && asRoot;
  if (unprivilegedWorkers) chmodSync(base, 0o755);
  const workspaces = writeCrossTenantWorkspaces({
    acmeRoot,
    globexRoot,
    canary: CANARY,
    ...(unprivilegedWorkers ? { owner: UNPRIVILEGED_USER } : {}),
  });
  const tenancy = writeTenancyFiles(base, {
    tenants: {
      acme: { workspaces: ["web"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } },
      globex: { workspaces: ["shop"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } },
    },
    keys: {
      acme: { tenant: "acme", scopes: ["lsp:read", "lsp:write"] },
      globex: { tenant: "globex", scopes: ["lsp:read", "lsp:write"] },
    },
  });
  const nats: NatsServer = await startNatsServer({
    secured: {
      tenants: ["acme", "globex"],
      runners: [
        { id: "shared-0" },
        { id: "workers-0" },
        // The control's runner lists both tenants (LSPMESH_TENANTS): its identity may claim just those.
        { id: "trusting-0", tenants: ["acme", "globex"] },
        { id: "acme-0", tenants: ["acme"] },
        { id: "globex-0", tenants: ["globex"] },
      ],
    },
  });
  const runners: RunnerProcess[] = [];
  let gateway: GatewayProcess | undefined;
  const close = async () => {
    await gateway?.stop();
    for (const runner of runners) await runner.stop();
    await nats.close();
    rmSync(base, { recursive: true, force: true });
  };
  // The runners of each mode: workspaces root, id, options.
  const runnerSpecs: Record<Mode, Array<[string, string, RunnerProcessOptions]>> = {
    // What the two deployments guard against: no sandbox, one root, the tenants declared to trust
    // each other (so the runner holds both).
    "control-unsandboxed-shared": [
      [
        acmeRoot,
        "trusting-0",
        {
          languages: LANGUAGES,
          tenants: ["acme", "globex"],
          env: { LSPMESH_SANDBOX: "none", LSPMESH_WORKERS: "off" },
        },
      ],
    ],
    // The default: one worker per tenant, Landlock inside bubblewrap.
    "sandboxed-shared": [[acmeRoot, "shared-0", { languages: LANGUAGES, env: { LSPMESH_SANDBOX: "bwrap" } }]],
    // What a Pod Security "restricted" pod can do: Landlock alone.
    "workers-landlock": [
      [
        acmeRoot,
        "workers-0",
        {
          languages: LANGUAGES,
          env: {
            LSPMESH_SANDBOX: "none",
            ...(asRoot ? { LSPMESH_WORKER_USER: `${UNPRIVILEGED_USER.uid}:${UNPRIVILEGED_USER.gid}` } : {}),
          },
        },
      ],
    ],
    "pinned-unsandboxed": [
      [
        acmeRoot,
        "acme-0",
        {
          languages: LANGUAGES,
          tenants: ["acme"],
          env: { LSPMESH_SANDBOX: "none", LSPMESH_WORKERS: "off" },
          hide: [globexRoot],
        },
      ],
      [
        globexRoot,
        "globex-0",
        {
          languages: LANGUAGES,
          tenants: ["globex"],
          env: { LSPMESH_SANDBOX: "none", LSPMESH_WORKERS: "off" },
          hide: [acmeRoot],
        },
      ],
    ],
  };
  const specs = runnerSpecs[mode];
  try {
    // Every process at once (a gateway may start before its runners); each one started is kept
    // for close() even when another fails.
    const started = await Promise.allSettled([
      startGatewayProcess({ natsUrl: nats, ...tenancy }).then((started) => {
        gateway = started;
      }),
      ...specs.map(([root, id, options]) =>
        startRunnerProcess(root, nats, id, options).then((runner) => void runners.push(runner)),
      ),
    ]);
    for (const outcome of started) if (outcome.status === "rejected") throw outcome.reason;
    const at = gateway!;
    await waitFor("live runners", async () => (await at.liveRunners()) === specs.length);
    return {
      gateway: at,
      runners,
      nats,
      token: tenancy.tokens.acme,
      globexToken: tenancy.tokens.globex!,
      workspaces,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** An MCP client of the deployment's gateway with one tenant's key, as the attacks call tools. */
async function connect(deployment: Deployment, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(deployment.gateway.url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const caller =
  (client: Client): CallTool =>
  async (name, args) =>
    (await client.callTool({ name, arguments: args }, { timeout: 60_000 })) as ToolResult;

// The control costs a deployment of its own: in the faults tier (npm run test:faults) only.
describe.runIf(isFaultsTier())("control: one unsandboxed runner holding both tenants", () => {
  test("the same calls do show the other tenant's canary (the suite can fail)", async () => {
    const deployment = await deploy("control-unsandboxed-shared");
    let client: Client | undefined;
    try {
      client = await connect(deployment, deployment.token, "cross-tenant-control");
      const call = caller(client);
      const leaked = await waitFor(
        "the canary in hover",
        async () => {
          const hover = await call("hover", { workspace: "web", file: "src/absImport.ts", symbol: "secret", line: 2 });
          return JSON.stringify(hover).includes(CANARY);
        },
        { timeoutMs: 90_000 },
      );
      expect(leaked).toBe(true);
    } finally {
      await client?.close();
      await deployment.close();
    }
  }, 180_000);
});

// Landlock-confined tenant workers alone (what a "restricted" pod runs), where the kernel has
// Landlock; and, where bubblewrap works, workers inside bubblewrap (the default there) and pinned
// runners (bubblewrap hides the other tenant's volume, as its own pod would). The control above
// runs without either (faults tier). npm test runs the first (workers inside bubblewrap where the
// kernel has no Landlock); the faults tier runs every mode.
const LANDLOCK = landlockAbi() > 0;
const MODES = [
  ...(LANDLOCK ? (["workers-landlock"] as const) : []),
  ...((isFaultsTier() || !LANDLOCK) && needs("bubblewrap", "crossTenant (sandboxed and pinned runners)")
    ? (["sandboxed-shared", ...(isFaultsTier() ? (["pinned-unsandboxed"] as const) : [])] as const)
    : []),
];
describe.each(MODES)("%s", (mode) => {
  let deployment: Deployment;
  let acme: Client;
  let globex: Client;
  let target: CrossTenantDeployment;

  beforeAll(async () => {
    deployment = await deploy(mode);
    acme = await connect(deployment, deployment.token, "cross-tenant");
    globex = await connect(deployment, deployment.globexToken, "cross-tenant-globex");
    target = {
      acme: caller(acme),
      globex: caller(globex),
      workspaces: deployment.workspaces,
      runnersAlive: async () => deployment.runners.every((runner) => runner.child.exitCode === null),
      niceSwapper: true,
    };
  }, 120_000);

  afterAll(async () => {
    await acme?.close();
    await globex?.close();
    await deployment?.close();
  });

  test("no read tool answer holds the other tenant's canary, and its tree is unchanged", async () => {
    expect(await readToolsAttack(target)).toEqual([]);
  }, 600_000);

  test("no write tool changes the other tenant's tree or reveals its canary", async () => {
    expect(await writeToolsAttack(target)).toEqual([]);
  }, 300_000);

  // The attacks below run in every mode in the faults tier (npm run test:faults); npm test runs
  // them against Landlock-confined workers alone (what a Pod Security "restricted" pod runs).
  const sharedOrFaults = mode === "workers-landlock" || isFaultsTier();
  test.runIf(sharedOrFaults)(
    "a symlink to the other tenant created after indexing: search_symbols never returns its declarations",
    async () => {
      expect(await lateSymlinkAttack(target)).toEqual([]);
    },
    180_000,
  );

  // ≥ 200 attempts in the faults tier (npm run test:faults); a short run in npm test.
  test.runIf(sharedOrFaults)(
    `a folder swapped with a symlink to the other tenant during ${RACE_ATTEMPTS} apply_workspace_edit and rename_file calls: its tree is untouched`,
    async () => {
      expect(await folderSwapRace(target)).toEqual([]);
    },
    // Three calls per attempt, up to 2 s each while the swapper storms the folder (about 0.8 s
    // measured on a 2-core machine; the faults tier's 600 calls passed 600 s once), plus 2 minutes
    // for a restarted server to answer again.
    Math.max(RACE_ATTEMPTS, 200) * 3 * 2_000 + 120_000,
  );

  // Long (a stalled tenant measured against the other's p99): in the faults tier only.
  test.runIf(isFaultsTier())(
    "FIFOs as acme's tsconfig and source files stall acme alone: globex's p99 stays under 2 s, and the runner survives their release",
    async () => {
      expect(await fifoAttack(target)).toEqual([]);
    },
    300_000,
  );

  // Tenant workers confine the servers they start; pinned runners without a sandbox do not (their
  // isolation is the volume a pod mounts), so the attacker's own server runs against workers only.
  test.runIf(mode !== "pinned-unsandboxed" && sharedOrFaults)(
    "acme's own language server reads neither globex's file nor the runner's secret file or environment, and connects to neither the runner nor NATS",
    async () => {
      const [runner] = deployment.runners;
      const targets = {
        files: [join(deployment.workspaces.globexDir, "src/secret.ts"), clusterSecretFile()],
        environCanary: deployment.nats.env(NATS_USERS.runner(mode === "workers-landlock" ? "workers-0" : "shared-0"))
          .LSPMESH_NATS_PASSWORD!,
        endpoints: [runner!.address, `127.0.0.1:${deployment.nats.port}`],
      };
      expect(await languageServerAttack(target, targets, localAttackControl)).toEqual([]);
    },
    120_000,
  );
});
