// The deployment, run: the gateway and TypeScript runner images built with buildah from the
// shipped Dockerfiles, the local overlay rendered with `kubectl kustomize` and run with
// `podman kube play` (NATS, one gateway, one runner, a workspaces volume holding a small
// TypeScript project), installed the way docs/deploy.md says: the NATS trust and the gateway's
// credential from `lspmesh nats-auth --jwt`, the gRPC secrets from `lspmesh grpc-secrets`, NATS
// started first, then the runner pool's credential minted with `lspmesh admin creds runner` and
// the tenants and keys loaded with `lspmesh admin apply -f` while it runs, each made into the
// object `kubectl create` would make. Then the official MCP client calls the gateway from the
// host with an API key. Everything it made is removed afterwards, also when a step fails.
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturePath, needs, waitFor } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { buildImages, GATEWAY_IMAGE, RUNNER_TYPESCRIPT_IMAGE } from "../src/images.js";
import { type KubeObject, kubectlCreate, render, workloads } from "../src/kustomize.js";
import { podman, podmanLogs, podmanNames, run } from "../src/podman.js";
import { forPodman } from "../src/podmanKube.js";
import { repoPath } from "../src/repo.js";
import { dockerfileBase, ensureNatsStandIn, ensureNodeStandIn, fullImageName } from "../src/standIns.js";

/** The token overlays/local/control.json admits for tenant acme (workspace web). */
const ACME_TOKEN = "local-acme-token-0123456789";
const CONTROL_SEED = repoPath("deploy/kustomize/overlays/local/control.json");
const NETWORK = "lspmesh-deploy-test";
const WORKSPACES_VOLUME = "lspmesh-workspaces";
/** The `lspmesh` command (built by `npm run test:deploy`, which builds everything first). */
const CLI = repoPath("apps/cli/bin/lspmesh.js");
const NATS_POD = "lspmesh-nats-pod-0";

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };

let work: string;
const kubeFiles: string[] = [];
let pods: string[] = [];
let volumesBefore: string[] = [];
let ownVolumes: string[] = [];
let client: Client | undefined;
let gatewayUrl: URL;

const text = (result: ToolResult) => result.content.map((part) => part.text ?? "").join("\n");
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

/** The local overlay's workspaces volume: acme/web holds the TypeScript fixture. */
async function workspacesVolume(): Promise<void> {
  const tree = join(work, "workspaces");
  mkdirSync(join(tree, "acme"), { recursive: true });
  cpSync(fixturePath("typescript-basic"), join(tree, "acme", "web"), { recursive: true });
  const tarball = join(work, "workspaces.tar");
  await run("tar", ["-C", tree, "--owner=0", "--group=0", "-cf", tarball, "acme"]);
  await podman("volume", "create", WORKSPACES_VOLUME);
  await podman("volume", "import", WORKSPACES_VOLUME, tarball);
}

/** `lspmesh ARGS…` (the built CLI); its output, or a rejection with it. */
const lspmesh = (...args: string[]) => run(process.execPath, [CLI, ...args], { combined: true });

/** The pods of a podman-runnable list that need nothing else: NATS (and the ConfigMaps it mounts). */
function natsFirst(runnable: KubeObject[]): [KubeObject[], KubeObject[]] {
  const nats = runnable.find((o) => o.kind === "Deployment" && o.metadata.name === "lspmesh-nats")!;
  const mounted = new Set(
    (nats.spec.template.spec.volumes ?? []).flatMap((v: { configMap?: { name: string } }) =>
      v.configMap ? [v.configMap.name] : [],
    ),
  );
  const first = runnable.filter((o) => o === nats || (o.kind === "ConfigMap" && mounted.has(o.metadata.name)));
  return [first, runnable.filter((o) => !first.includes(o))];
}

/** Plays one kube file on the test's network (kept for `kube down`). */
async function play(name: string, objects: KubeObject[]): Promise<void> {
  const file = join(work, name);
  writeFileSync(file, objects.map((object) => stringify(object)).join("---\n"));
  kubeFiles.push(file);
  await podman("kube", "play", "--network", NETWORK, file);
}

async function podIp(pod: string): Promise<string> {
  const infra = (await podman("pod", "inspect", "--format", "{{.InfraContainerID}}", pod)).trim();
  const networks = JSON.parse(await podman("inspect", "--format", "{{json .NetworkSettings.Networks}}", infra));
  const address = networks[NETWORK]?.IPAddress;
  if (!address) throw new Error(`pod ${pod} has no address on ${NETWORK}`);
  return address;
}

async function logsOf(): Promise<string> {
  const names = (await podmanNames("container")).filter((name) => pods.some((pod) => name.startsWith(`${pod}-`)));
  const parts = await Promise.all(
    names
      .filter((name) => !name.endsWith("-infra"))
      .map(async (name) => `--- ${name}\n${(await podmanLogs(name, "--tail", "30").catch(String)).slice(-3000)}`),
  );
  return parts.join("\n");
}

let cleaning: Promise<void> | undefined;
/** Removes every pod, container, volume and network this test made. Idempotent. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await client?.close().catch(() => {});
    for (const file of kubeFiles.reverse()) await podman("kube", "down", file).catch(() => {});
    for (const pod of pods) await podman("pod", "rm", "--force", "--ignore", pod).catch(() => {});
    // The workspaces and ConfigMap volumes, and any other volume podman made for the pods.
    const made = (await podmanNames("volume")).filter(
      (volume) => ownVolumes.includes(volume) || !volumesBefore.includes(volume),
    );
    for (const volume of made) await podman("volume", "rm", "--force", volume).catch(() => {});
    await podman("network", "rm", "--force", NETWORK).catch(() => {});
    if (work) rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}

// Images are built with buildah and run with podman: without them (outside CI) the suite is skipped.
describe.skipIf(!needs("podman", "the local deployment (test:deploy)"))("the local overlay under podman", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "lspmesh-deploy-"));
    const started = Date.now();
    const objects = render("overlays/local");
    const nodeBase = dockerfileBase("deploy/docker/gateway.Dockerfile");
    expect(dockerfileBase("deploy/docker/runner.Dockerfile")).toBe(nodeBase);
    await ensureNodeStandIn(nodeBase);
    const natsImage = workloads(objects).find((w) => w.metadata.name === "lspmesh-nats")!.spec.template.spec
      .containers[0].image as string;
    await ensureNatsStandIn(fullImageName(natsImage), nodeBase);
    console.log(`stand-in base images ready in ${seconds(started)}`);
    await buildImages([GATEWAY_IMAGE, RUNNER_TYPESCRIPT_IMAGE]);

    // What the operator makes before deploying (docs/deploy.md, steps 2 and 3): the NATS trust,
    // nats-jwt.conf and the gateway's credential; the gateways' gRPC key and the pool's secret.
    const trust = join(work, "trust");
    await lspmesh("nats-auth", "--jwt", "--out", trust, "--resolver-dir", "/data/jwt");
    const grpcKey = randomBytes(24).toString("hex");
    writeFileSync(join(work, "grpc-key"), grpcKey, { mode: 0o600 });
    await lspmesh(
      "grpc-secrets",
      "--key-file",
      join(work, "grpc-key"),
      "--runners",
      "typescript",
      "--out",
      join(work, "grpc"),
    );
    const operatorMade = [
      kubectlCreate(["configmap", "lspmesh-nats-jwt", `--from-file=${join(trust, "nats-jwt.conf")}`]),
      kubectlCreate(["secret", "generic", "lspmesh-nats-gateway", `--from-file=${join(trust, "gateway.creds")}`]),
      kubectlCreate(["secret", "generic", "lspmesh-grpc", `--from-literal=secret=${grpcKey}`]),
      kubectlCreate(["secret", "generic", "lspmesh-grpc-runners", `--from-file=${join(work, "grpc")}`]),
    ];
    const [natsObjects, rest] = natsFirst(forPodman([...objects, ...operatorMade]));
    pods = [...natsObjects, ...rest]
      .filter((object) => object.kind === "Deployment")
      .map((object) => `${object.metadata.name}-pod-0`);
    // podman keeps each ConfigMap in a volume of its name.
    ownVolumes = [
      WORKSPACES_VOLUME,
      "lspmesh-nats-runner-typescript",
      ...[...natsObjects, ...rest].filter((o) => o.kind === "ConfigMap").map((o) => o.metadata.name),
    ];
    // Anything left by an earlier run that was killed before its cleanup.
    for (const pod of pods) await podman("pod", "rm", "--force", "--ignore", pod);
    for (const volume of ownVolumes) await podman("volume", "rm", "--force", volume).catch(() => {});
    await podman("network", "rm", "--force", NETWORK).catch(() => {});
    volumesBefore = await podmanNames("volume");

    await workspacesVolume();
    await podman("network", "create", NETWORK);
    const played = Date.now();
    // NATS first: the pool's credential and the tenants are made while it runs.
    await play("nats.yaml", natsObjects);
    const natsUrl = `nats://${await podIp(NATS_POD)}:4222`;
    const admin = ["--nats", natsUrl, "--nats-creds", join(trust, "admin.creds")];
    await waitFor(
      "NATS to let the admin in",
      async () => {
        const creds = credsAuthenticator(new TextEncoder().encode(readFileSync(join(trust, "admin.creds"), "utf8")));
        await (await connect({ servers: natsUrl, authenticator: creds, timeout: 2_000 })).close();
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await logsOf()}`);
    });
    await lspmesh(
      "admin",
      "creds",
      "runner",
      "typescript",
      "--out",
      join(work, "runner.creds"),
      "--nats-trust",
      trust,
      ...admin,
    );
    console.log(await lspmesh("admin", "apply", "-f", CONTROL_SEED, ...admin));
    const runnerCreds = kubectlCreate([
      "secret",
      "generic",
      "lspmesh-nats-runner-typescript",
      `--from-file=runner.creds=${join(work, "runner.creds")}`,
    ]);
    await play("lspmesh.yaml", [...forPodman([runnerCreds]), ...rest]);

    gatewayUrl = new URL(`http://${await podIp("lspmesh-gateway-pod-0")}:7420/mcp`);
    await waitFor("the gateway's /readyz", async () => (await fetch(new URL("/readyz", gatewayUrl))).ok, {
      timeoutMs: 60_000,
      intervalMs: 250,
    }).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await logsOf()}`);
    });
    client = new Client({ name: "deploy-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(gatewayUrl, {
        requestInit: { headers: { authorization: `Bearer ${ACME_TOKEN}` } },
      }),
    );
    console.log(`pods up and the gateway ready ${seconds(played)} after kube play`);
  }, 900_000);

  afterAll(async () => {
    await cleanUp();
  }, 120_000);

  async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await client!.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
  }

  test("find_definition through the gateway answers from the runner's TypeScript server", async () => {
    // The runner registers in NATS once it is up; until the gateway sees it, calls are UNAVAILABLE.
    const result = await waitFor(
      "a runner registered with the gateway",
      async () => {
        const answer = await call("find_definition", {
          workspace: "web",
          file: "src/main.ts",
          symbol: "PoliteGreeter",
          line: 3,
        });
        return !/UNAVAILABLE|SERVER_STARTING/.test(text(answer)) && answer;
      },
      // Each refused call is a log line in the gateway: a few a second, not forty.
      { timeoutMs: 120_000, intervalMs: 250 },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await logsOf()}`);
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain("src/greeter.ts:7:14");
  });

  test("diagnostics through the gateway report the type error, complete", async () => {
    const result = await call("diagnostics", { workspace: "web", files: ["src/broken.ts"], wait_ms: 20_000 });
    expect(result.isError, text(result)).toBeFalsy();
    const files = result.structuredContent?.files as Array<{ file: string; diagnostics: Array<{ message: string }> }>;
    expect(files.map((file) => file.file)).toEqual(["src/broken.ts"]);
    expect(files[0]!.diagnostics.map((d) => d.message).join("\n")).toMatch(/not assignable to type 'number'/);
    expect(result.structuredContent?.partial).toBe(false);
  });

  test("another tenant's workspace is not found with acme's key", async () => {
    const result = await call("document_symbols", { workspace: "shop", file: "src/main.ts" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^NOT_FOUND/);
  });

  test("everything is removed afterwards: no pod, container, volume or network left", async () => {
    await cleanUp();
    const containers = (await podmanNames("container")).filter((name) => pods.some((pod) => name.startsWith(pod)));
    expect(containers).toEqual([]);
    expect((await podmanNames("pod")).filter((name) => pods.includes(name))).toEqual([]);
    const volumes = await podmanNames("volume");
    expect(volumes.filter((name) => ownVolumes.includes(name) || !volumesBefore.includes(name))).toEqual([]);
    expect(await podmanNames("network")).not.toContain(NETWORK);
  });
});
