// The deployment, run: the gateway and TypeScript runner images built with buildah from the
// shipped Dockerfiles, the local overlay rendered with `kubectl kustomize` and run with
// `podman kube play` (NATS, one gateway, one runner, a workspaces volume holding a small
// TypeScript project), and the official MCP client calling the gateway from the host with an API
// key. Everything it made is removed afterwards, also when a step fails.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturePath, needs, waitFor } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { buildImages, GATEWAY_IMAGE, RUNNER_TYPESCRIPT_IMAGE } from "../src/images.js";
import { render, workloads } from "../src/kustomize.js";
import { podman, podmanLogs, podmanNames, run } from "../src/podman.js";
import { forPodman } from "../src/podmanKube.js";
import { dockerfileBase, ensureNatsStandIn, ensureNodeStandIn, fullImageName } from "../src/standIns.js";

/** The token overlays/local/api-keys.json admits for tenant acme (workspace web). */
const ACME_TOKEN = "local-acme-token-0123456789";
const NETWORK = "lspmesh-deploy-test";
const WORKSPACES_VOLUME = "lspmesh-workspaces";

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };

let work: string;
let kubeFile: string;
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
    if (kubeFile) await podman("kube", "down", kubeFile).catch(() => {});
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

    const runnable = forPodman(objects);
    pods = runnable.filter((object) => object.kind === "Deployment").map((object) => `${object.metadata.name}-pod-0`);
    // podman keeps each ConfigMap in a volume of its name.
    ownVolumes = [WORKSPACES_VOLUME, ...runnable.filter((o) => o.kind === "ConfigMap").map((o) => o.metadata.name)];
    // Anything left by an earlier run that was killed before its cleanup.
    for (const pod of pods) await podman("pod", "rm", "--force", "--ignore", pod);
    for (const volume of ownVolumes) await podman("volume", "rm", "--force", volume).catch(() => {});
    await podman("network", "rm", "--force", NETWORK).catch(() => {});
    volumesBefore = await podmanNames("volume");

    kubeFile = join(work, "local.yaml");
    writeFileSync(kubeFile, runnable.map((object) => stringify(object)).join("---\n"));
    await workspacesVolume();
    await podman("network", "create", NETWORK);
    const played = Date.now();
    await podman("kube", "play", "--network", NETWORK, kubeFile);

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
