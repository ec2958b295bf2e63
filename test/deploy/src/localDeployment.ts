// The local overlay run with `podman kube play` (npm run test:deploy), installed as docs/deploy.md
// says (localInstall.ts): the three NATS servers first, then the runner pool's credential minted
// with `lspmesh admin creds runner` and the tenants and keys loaded with `lspmesh admin apply -f`
// while they run, then the gateway and the runners; a small TypeScript project (acme/web) in the
// workspaces volume. Pods are reached from the host by their addresses on the test's network.
// Everything made is removed by close(), also when a step fails; an earlier run's leftovers are
// removed first. One deployment at a time on a machine (pod names are the overlay's): run the
// podman tests under `flock /tmp/lspmesh-podman.lock`.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturePath, waitFor } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import { stringify } from "yaml";
import type { KubeObject } from "./kustomize.js";
import {
  buildLocalImages,
  localObjects,
  lspmesh,
  RUNNER_POOL,
  renderLocal,
  runnerCredentials,
} from "./localInstall.js";
import { containerLogTail } from "./logTail.js";
import { podman, podmanNames, run } from "./podman.js";
import { podmanPodOf } from "./podmanKube.js";
import { repoPath } from "./repo.js";

/** The token overlays/local/control.json admits for tenant acme (workspace web). */
export const ACME_TOKEN = "local-acme-token-0123456789";
const CONTROL_SEED = repoPath("deploy/kustomize/overlays/local/control.json");
const NETWORK = "lspmesh-deploy-test";
const WORKSPACES_VOLUME = "lspmesh-workspaces";
const RUNNER_CREDS_VOLUME = "lspmesh-nats-runner-typescript";

export interface NatsPod {
  /** Its server_name, the StatefulSet pod's name: lspmesh-nats-<n>. */
  readonly name: string;
  /** The podman pod running it. */
  readonly pod: string;
  /** Its client URL from the host. */
  readonly url: string;
}

export interface LocalDeployment {
  /** The gateway's MCP endpoint from the host. */
  readonly gatewayUrl: URL;
  readonly nats: readonly NatsPod[];
  /** Every NATS server's URL from the host, comma-separated (for --nats). */
  readonly natsUrl: string;
  /** The NATS trust directory (`lspmesh admin creds … --nats-trust`) and the admin's creds file in it. */
  readonly trust: string;
  readonly adminCreds: string;
  /** `--nats <every server> --nats-creds <admin>` for `lspmesh admin` and `lspmesh diagnostics`. */
  readonly adminArgs: readonly string[];
  /** The runners' registry ids and podman pods, by ordinal. */
  readonly runnerIds: readonly string[];
  readonly runnerPods: readonly string[];
  /** Where a workspace file is on the host (the workspaces volume's folder), e.g. ("acme/web", "src/a.ts"). */
  workspaceFile(workspace: string, file: string): string;
  /** An MCP client of the gateway with acme's API token (closed by close()). */
  mcpClient(name?: string): Promise<Client>;
  /** The last lines of every container's log, for a failure's message. */
  logs(lines?: number): Promise<string>;
  /** Pods, containers, volumes and the network made that are still there (none after close()). */
  leftovers(): Promise<string[]>;
  /** Removes every pod, container, volume and network made. Idempotent. */
  close(): Promise<void>;
}

export interface LocalDeploymentOptions {
  /** TypeScript runners (replicas of the runner pool; default 1). */
  runners?: number;
  /** Runner variables replaced or added (e.g. LSPMESH_HANDOFF=0 for a control run). */
  runnerEnv?: Readonly<Record<string, string>>;
  /** Gateway variables replaced or added. */
  gatewayEnv?: Readonly<Record<string, string>>;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

async function podIp(pod: string): Promise<string> {
  const infra = (await podman("pod", "inspect", "--format", "{{.InfraContainerID}}", pod)).trim();
  const networks = JSON.parse(await podman("inspect", "--format", "{{json .NetworkSettings.Networks}}", infra));
  const address = networks[NETWORK]?.IPAddress;
  if (!address) throw new Error(`pod ${pod} has no address on ${NETWORK}`);
  return address;
}

/** The named volumes podman makes for a Deployment's emptyDirs (forPodman names them per pod). */
function emptyDirVolumes(object: KubeObject): string[] {
  if (object.kind !== "Deployment") return [];
  const volumes: Array<{ name: string; emptyDir?: unknown }> = object.spec.template.spec.volumes ?? [];
  return volumes.filter((volume) => volume.emptyDir).map((volume) => volume.name);
}

/** The workspaces volume: acme/web holds the TypeScript fixture. */
async function workspacesVolume(work: string): Promise<void> {
  const tree = join(work, "workspaces");
  mkdirSync(join(tree, "acme"), { recursive: true });
  cpSync(fixturePath("typescript-basic"), join(tree, "acme", "web"), { recursive: true });
  const tarball = join(work, "workspaces.tar");
  await run("tar", ["-C", tree, "--owner=0", "--group=0", "-cf", tarball, "acme"]);
  await podman("volume", "create", WORKSPACES_VOLUME);
  await podman("volume", "import", WORKSPACES_VOLUME, tarball);
}

/** The podman objects a deployment makes and removes: pods, kube files, volumes, network. */
class Made {
  readonly kubeFiles: string[] = [];
  pods: string[] = [];
  ownVolumes: string[] = [];
  volumesBefore: string[] = [];
  readonly clients: Client[] = [];
  private cleaning: Promise<void> | undefined;

  constructor(readonly work: string) {}

  /** Plays one kube file on the test's network (kept for `kube down`). */
  async play(name: string, objects: KubeObject[]): Promise<void> {
    const file = join(this.work, name);
    writeFileSync(file, objects.map((object) => stringify(object)).join("---\n"));
    this.kubeFiles.push(file);
    await podman("kube", "play", "--network", NETWORK, file);
  }

  async logs(lines = 30): Promise<string> {
    const names = (await podmanNames("container")).filter((n) => this.pods.some((pod) => n.startsWith(`${pod}-`)));
    const parts = await Promise.all(
      names
        .filter((name) => !name.endsWith("-infra"))
        .map(async (name) => `--- ${name}\n${(await containerLogTail(name, lines)).slice(-4000)}`),
    );
    return parts.join("\n");
  }

  /** Anything left by an earlier run that was killed before its clean-up. */
  async clearEarlier(): Promise<void> {
    for (const pod of this.pods) await podman("pod", "rm", "--force", "--ignore", pod);
    for (const volume of this.ownVolumes) await podman("volume", "rm", "--force", volume).catch(() => {});
    await podman("network", "rm", "--force", NETWORK).catch(() => {});
    this.volumesBefore = await podmanNames("volume");
  }

  async leftovers(): Promise<string[]> {
    const containers = (await podmanNames("container")).filter((n) => this.pods.some((pod) => n.startsWith(pod)));
    const pods = (await podmanNames("pod")).filter((name) => this.pods.includes(name));
    const volumes = (await podmanNames("volume")).filter(
      (v) => this.ownVolumes.includes(v) || !this.volumesBefore.includes(v),
    );
    const network = (await podmanNames("network")).filter((name) => name === NETWORK);
    return [...containers, ...pods, ...volumes, ...network];
  }

  close(): Promise<void> {
    this.cleaning ??= (async () => {
      await Promise.all(this.clients.map((client) => client.close().catch(() => {})));
      for (const file of [...this.kubeFiles].reverse()) await podman("kube", "down", file).catch(() => {});
      for (const pod of this.pods) await podman("pod", "rm", "--force", "--ignore", pod).catch(() => {});
      // The workspaces and ConfigMap volumes, and any other volume podman made for the pods.
      const made = (await podmanNames("volume")).filter(
        (v) => this.ownVolumes.includes(v) || !this.volumesBefore.includes(v),
      );
      for (const volume of made) await podman("volume", "rm", "--force", volume).catch(() => {});
      await podman("network", "rm", "--force", NETWORK).catch(() => {});
      rmSync(this.work, { recursive: true, force: true });
    })();
    return this.cleaning;
  }
}

/** The NATS servers played and healthy (JetStream current with the cluster), the admin let in. */
async function startNats(made: Made, objects: KubeObject[], adminCreds: string): Promise<NatsPod[]> {
  await made.play("nats.yaml", objects);
  const servers = objects.filter((o) => o.kind === "Deployment").map((o) => o.metadata.name);
  const nats = await Promise.all(
    servers.map(async (name) => ({
      name,
      pod: podmanPodOf(name),
      url: `nats://${await podIp(podmanPodOf(name))}:4222`,
    })),
  );
  for (const [index, server] of nats.entries()) nats[index] = await startedAsTheKubeletWould(server);
  const authenticator = credsAuthenticator(new TextEncoder().encode(readFileSync(adminCreds, "utf8")));
  await waitFor(
    "NATS to let the admin in",
    async () => {
      await (await connect({ servers: nats.map((s) => s.url), authenticator, timeout: 2_000 })).close();
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  return nats;
}

/**
 * Waits for a NATS server's startup probe (GET /healthz: JetStream current with the cluster). podman
 * runs no probes; Kubernetes restarts a container whose startup probe keeps failing (nats.yaml: 90
 * tries 2 s apart), and so does this, sooner: once in CI a server of a fresh cluster (the stand-in
 * image runs the machine's nats-server, 2.9.10 on Debian 12) never heard of the meta leader the other
 * two had elected.
 */
async function startedAsTheKubeletWould(server: NatsPod): Promise<NatsPod> {
  const container = `${server.pod}-nats`;
  const healthy = (pod: NatsPod, timeoutMs: number) => {
    const monitor = new URL("/healthz", pod.url.replace("nats://", "http://").replace(":4222", ":8222"));
    return waitFor(`NATS ${pod.name} healthy`, async () => (await fetch(monitor)).ok, { timeoutMs, intervalMs: 500 });
  };
  try {
    await healthy(server, 60_000);
    return server;
  } catch (error) {
    const log = await containerLogTail(container, 40);
    console.log(
      `${(error as Error).message}: its container is restarted, as its startup probe would. Its log:\n${log}`,
    );
    await podman("stop", container);
    await podman("start", container);
    // The pod may come back on another address (seen: podman re-made its network namespace).
    const restarted = { ...server, url: `nats://${await podIp(server.pod)}:4222` };
    await healthy(restarted, 90_000);
    return restarted;
  }
}

export async function startLocalDeployment(options: LocalDeploymentOptions = {}): Promise<LocalDeployment> {
  const made = new Made(mkdtempSync(join(tmpdir(), "lspmesh-deploy-")));
  try {
    return await deploy(made, options.runners ?? 1, options.runnerEnv, options.gatewayEnv);
  } catch (error) {
    const tail = await made.logs().catch(() => "");
    await made.close();
    throw new Error(`${(error as Error).message}\n${tail}`);
  }
}

async function deploy(
  made: Made,
  runners: number,
  runnerEnv?: Readonly<Record<string, string>>,
  gatewayEnv?: Readonly<Record<string, string>>,
): Promise<LocalDeployment> {
  const started = Date.now();
  const rendered = renderLocal(runners, runnerEnv, gatewayEnv);
  await buildLocalImages(rendered);
  console.log(`images ready in ${seconds(started)}`);
  const objects = await localObjects(made.work, rendered);
  const all = [...objects.nats, ...objects.rest];
  made.pods = all.filter((o) => o.kind === "Deployment").map((o) => podmanPodOf(o.metadata.name));
  // podman keeps each ConfigMap in a volume of its name, and each emptyDir in a named volume
  // (`<pod>-<volume>`). Both are this deployment's: one left by a killed run is removed first, or a
  // NATS server would start on an earlier cluster's JetStream store and never join the new one.
  made.ownVolumes = [
    WORKSPACES_VOLUME,
    RUNNER_CREDS_VOLUME,
    ...all.filter((o) => o.kind === "ConfigMap").map((o) => o.metadata.name),
    ...all.flatMap(emptyDirVolumes),
  ];
  await made.clearEarlier();
  await workspacesVolume(made.work);
  await podman("network", "create", NETWORK);
  const played = Date.now();
  const adminCreds = join(objects.trust, "admin.creds");
  // NATS first: the pool's credential and the tenants are made while it runs.
  const nats = await startNats(made, objects.nats, adminCreds);
  const natsUrl = nats.map((server) => server.url).join(",");
  const adminArgs = ["--nats", natsUrl, "--nats-creds", adminCreds];
  const runnerCreds = await runnerCredentials(made.work, objects.trust, adminArgs);
  console.log(await lspmesh("admin", "apply", "-f", CONTROL_SEED, ...adminArgs));
  await made.play("lspmesh.yaml", [...runnerCreds, ...objects.rest]);
  const gatewayUrl = new URL(`http://${await podIp(podmanPodOf("lspmesh-gateway"))}:7420/mcp`);
  await waitFor("the gateway's /readyz", async () => (await fetch(new URL("/readyz", gatewayUrl))).ok, {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  console.log(`pods up and the gateway ready ${seconds(played)} after kube play`);
  const volumeFolder = (await podman("volume", "inspect", "--format", "{{.Mountpoint}}", WORKSPACES_VOLUME)).trim();
  const ordinals = [...Array(runners).keys()];
  return {
    gatewayUrl,
    nats,
    natsUrl,
    trust: objects.trust,
    adminCreds,
    adminArgs,
    runnerIds: ordinals.map((n) => `typescript.${RUNNER_POOL}-${n}`),
    runnerPods: ordinals.map((n) => podmanPodOf(`${RUNNER_POOL}-${n}`)),
    workspaceFile: (workspace, file) => join(volumeFolder, workspace, file),
    async mcpClient(name = "deploy-test") {
      const client = new Client({ name, version: "1.0.0" });
      made.clients.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(gatewayUrl, {
          requestInit: { headers: { authorization: `Bearer ${ACME_TOKEN}` } },
        }),
      );
      return client;
    },
    logs: (lines) => made.logs(lines),
    leftovers: () => made.leftovers(),
    close: () => made.close(),
  };
}
