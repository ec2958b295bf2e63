// The runner images whose language servers are Debian packages on the same base as
// runner-typescript (deploy/docker/runner.Dockerfile): runner-cpp (clangd) and runner-go
// (golang-go, gopls), each built here and run as the cross-tenant test runs its image (podman,
// Pod Security "restricted" settings, tenant workers), with NATS in a container beside them and
// the gateway on the host. Each serves the languages file shipped in its image; one call each,
// through the gateway with the official MCP client, must answer with the definition in the other
// file of a tiny workspace.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CallTool,
  chownTree,
  type GatewayProcess,
  needs,
  startGatewayProcess,
  type ToolResult,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildImages, RUNNER_CPP_IMAGE, RUNNER_GO_IMAGE } from "../src/images.js";
import { render, workloads } from "../src/kustomize.js";
import { type NatsContainer, startNatsContainer } from "../src/natsContainer.js";
import { podman, podmanNames } from "../src/podman.js";
import {
  addressesOf,
  connectMcp,
  containerLogs,
  IN_RUNNER,
  RUNNER_USER,
  runnerSecrets,
  startRunnerContainer,
} from "../src/runnerContainer.js";
import { dockerfileBase, ensureNatsStandIn, ensureNodeStandIn, fullImageName } from "../src/standIns.js";

const NETWORK = "lspmesh-native-test";
const NATS_CONTAINER = "lspmesh-native-nats";
const RUNNERS = {
  cpp: { container: "lspmesh-native-runner-cpp", id: "lspmesh-native-runner-cpp-0", image: RUNNER_CPP_IMAGE },
  go: { container: "lspmesh-native-runner-go", id: "lspmesh-native-runner-go-0", image: RUNNER_GO_IMAGE },
} as const;
const CONTAINERS = [NATS_CONTAINER, ...Object.values(RUNNERS).map((runner) => runner.container)];

let work: string;
let nats: NatsContainer | undefined;
let gateway: GatewayProcess | undefined;
const clients: Client[] = [];
let acme: CallTool;
let volumesBefore: string[] = [];

/** acme's two workspaces, `c` and `go`, under the workspaces root (the runners see it at /workspaces). */
function writeWorkspaces(root: string): void {
  const c = join(root, "acme", "c");
  mkdirSync(c, { recursive: true });
  writeFileSync(join(c, "main.c"), "int add(int a, int b);\n\nint main(void) {\n  return add(1, 2);\n}\n");
  writeFileSync(
    join(c, "util.c"),
    "/* add: declared in main.c, defined here. */\n\nint add(int a, int b) {\n  return a + b;\n}\n",
  );
  // The compilation database names directories as the runner sees them; clangd runs no compiler.
  const inRunner = `${IN_RUNNER.workspaces}/acme/c`;
  writeFileSync(
    join(c, "compile_commands.json"),
    JSON.stringify(
      ["main.c", "util.c"].map((file) => ({ directory: inRunner, file, arguments: ["cc", "-c", file] })),
      null,
      2,
    ),
  );
  const go = join(root, "acme", "go");
  mkdirSync(go, { recursive: true });
  writeFileSync(join(go, "go.mod"), "module example.com/hello\n\ngo 1.19\n");
  writeFileSync(
    join(go, "main.go"),
    'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(greeting("acme"))\n}\n',
  );
  writeFileSync(
    join(go, "greet.go"),
    'package main\n\n// greeting is defined here and called from main.go.\nfunc greeting(name string) string {\n\treturn "hello, " + name\n}\n',
  );
  // The workers (the runner's user) write clangd's index and gopls's state.
  chownTree(join(root, "acme"), RUNNER_USER);
}

let cleaning: Promise<void> | undefined;
/** Removes every container and the network this test made, and its files. Idempotent. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const client of clients) await client.close().catch(() => {});
    await gateway?.stop().catch(() => {});
    for (const runner of Object.values(RUNNERS))
      await podman("rm", "--force", "--time", "5", "--ignore", runner.container).catch(() => {});
    await nats?.close().catch(() => {});
    await podman("rm", "--force", "--ignore", NATS_CONTAINER).catch(() => {});
    await podman("network", "rm", "--force", NETWORK).catch(() => {});
    if (work) rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}

const textOf = (result: ToolResult) => result.content.map((part) => part.text ?? "").join("\n");

/**
 * find_definition until it names `expected` (clangd answers with main.c's declaration until its
 * background index has read util.c; gopls may answer before it has loaded the package).
 */
async function definitionOnceReady(args: Record<string, unknown>, expected: string): Promise<ToolResult> {
  let last: ToolResult | undefined;
  return waitFor(
    `find_definition ${JSON.stringify(args)} naming ${expected}`,
    async () => {
      last = await acme("find_definition", args);
      return !last.isError && textOf(last).includes(expected) ? last : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1_000 },
  ).catch(async (error: Error) => {
    throw new Error(
      `${error.message}\nlast answer: ${JSON.stringify(last)}\n${await containerLogs(CONTAINERS, gateway)}`,
    );
  });
}

describe.skipIf(!needs("podman", "the C/C++ and Go runner images (test:deploy)"))(
  "runner-cpp and runner-go, Debian's clangd and gopls on the runner's base, under podman, restricted",
  () => {
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "lspmesh-native-podman-"));
      const nodeBase = dockerfileBase(RUNNER_CPP_IMAGE.dockerfile);
      await ensureNodeStandIn(nodeBase);
      const natsImage = fullImageName(
        workloads(render("overlays/local")).find((w) => w.metadata.name === "lspmesh-nats")!.spec.template.spec
          .containers[0].image as string,
      );
      await ensureNatsStandIn(natsImage, nodeBase);
      await buildImages([RUNNER_CPP_IMAGE, RUNNER_GO_IMAGE]);
      // Anything left by an earlier run that was killed before its cleanup.
      for (const name of CONTAINERS) await podman("rm", "--force", "--ignore", name);
      await podman("network", "rm", "--force", NETWORK).catch(() => {});

      volumesBefore = await podmanNames("volume");
      await podman("network", "create", NETWORK);
      const [natsIp, cppIp, goIp] = await addressesOf(NETWORK, 3);
      const ids = Object.values(RUNNERS).map((runner) => runner.id);
      nats = await startNatsContainer({
        name: NATS_CONTAINER,
        image: natsImage,
        network: NETWORK,
        ip: natsIp!,
        dir: work,
        tenants: ["acme"],
        runners: ids.map((id) => ({ id })),
      });
      const root = join(work, "workspaces");
      writeWorkspaces(root);
      const secrets = runnerSecrets(join(work, "secrets"), nats, ids);
      const tenancy = writeTenancyFiles(work, {
        tenants: { acme: { workspaces: ["c", "go"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } } },
        keys: { acme: { tenant: "acme", scopes: ["lsp:read"] } },
      });
      // Each with its image's own languages file (/etc/lspmesh/languages.json): no override.
      for (const [pool, ip] of [
        ["cpp", cppIp!],
        ["go", goIp!],
      ] as const) {
        const runner = RUNNERS[pool];
        await startRunnerContainer({
          name: runner.container,
          image: runner.image.tag,
          network: NETWORK,
          ip,
          id: runner.id,
          pool,
          nats,
          workspaces: root,
          secrets,
        });
      }
      gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy });
      const at = gateway;
      await waitFor("both runners in the gateway's registry", async () => (await at.liveRunners()) === 2, {
        timeoutMs: 60_000,
        intervalMs: 250,
      }).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await containerLogs(CONTAINERS, gateway)}`);
      });
      acme = await connectMcp(at, tenancy.tokens.acme, "native-images-podman", clients);
    }, 900_000);

    afterAll(async () => {
      await cleanUp();
    }, 120_000);

    test("both runners run as uid 10001 with no capability and a read-only root", async () => {
      for (const runner of Object.values(RUNNERS)) {
        const config = JSON.parse(await podman("inspect", "--format", "{{json .HostConfig}}", runner.container));
        expect(config.ReadonlyRootfs, runner.container).toBe(true);
        expect(config.Privileged, runner.container).toBe(false);
        const status = await podman("exec", runner.container, "cat", "/proc/1/status");
        expect(/^Uid:\s*(\d+)/m.exec(status)?.[1], runner.container).toBe(String(RUNNER_USER.uid));
        expect(/^CapEff:\s*(\S+)/m.exec(status)?.[1], runner.container).toBe("0000000000000000");
      }
    });

    test("C through clangd in runner-cpp: find_definition of a function called in main.c is its definition in util.c", async () => {
      const result = await definitionOnceReady(
        { workspace: "c", file: "main.c", symbol: "add", line: 4 },
        "util.c:3:5",
      );
      expect(result.structuredContent).toMatchObject({ language: "cpp" });
      expect(textOf(result)).not.toContain("main.c:1:");
    }, 180_000);

    test("Go through gopls in runner-go: find_definition of a function called in main.go is its definition in greet.go", async () => {
      const result = await definitionOnceReady(
        { workspace: "go", file: "main.go", symbol: "greeting", line: 6 },
        "greet.go:4:6",
      );
      expect(result.structuredContent).toMatchObject({ language: "go" });
    }, 180_000);

    test("everything is removed afterwards: no container, volume or network left", async () => {
      await cleanUp();
      const containers = await podmanNames("container");
      expect(containers.filter((name) => CONTAINERS.includes(name))).toEqual([]);
      expect((await podmanNames("volume")).filter((name) => !volumesBefore.includes(name))).toEqual([]);
      expect(await podmanNames("network")).not.toContain(NETWORK);
    });
  },
);
