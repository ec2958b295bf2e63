// The cross-tenant attacks (the test kit's, as test/e2e runs them against local runners) against
// one runner INSIDE the TypeScript runner image, serving both tenants from one workspaces root,
// with tenant workers (LSPMESH_WORKERS=auto), started by podman with what a Pod Security
// "restricted" pod gets: uid 10001, every capability dropped, no-new-privileges, podman's default
// seccomp profile, a read-only root filesystem (tmpfs /tmp, as the pods' emptyDir), no user
// namespace. bubblewrap cannot wrap the workers there (it makes its namespaces, but the kernel
// refuses it a new /proc while podman masks parts of the container's: "Can't mount proc"), so the
// runner's probe falls back to Landlock alone. NATS (lspmesh's authorization) runs in a container
// beside it; the gateway runs on the host, where acme and globex call it with the official MCP
// client. Attacks that act on files (links made late, the folder-swap race, FIFOs) run on the
// host, on the bind-mounted root.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AttackAttempt,
  attackerLanguage,
  type CrossTenantDeployment,
  type CrossTenantWorkspaces,
  fifoAttack,
  folderSwapRace,
  type GatewayProcess,
  LANGUAGE_SERVER_ATTACKER,
  languageServerAttack,
  lateSymlinkAttack,
  needs,
  RACE_ATTEMPTS,
  readToolsAttack,
  startGatewayProcess,
  waitFor,
  writeCrossTenantWorkspaces,
  writeTenancyFiles,
  writeToolsAttack,
} from "@lspmesh/test-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildImages, RUNNER_TYPESCRIPT_IMAGE } from "../src/images.js";
import { render, workloads } from "../src/kustomize.js";
import { type NatsContainer, startNatsContainer } from "../src/natsContainer.js";
import { podman, podmanLogs, podmanNames } from "../src/podman.js";
import {
  addressesOf,
  connectMcp,
  containerLogs,
  containerRunning,
  IN_RUNNER as RUNNER_LAYOUT,
  RUNNER_PORT,
  RUNNER_USER,
  runnerSecrets,
  startRunnerContainer,
} from "../src/runnerContainer.js";
import { dockerfileBase, ensureNatsStandIn, ensureNodeStandIn, fullImageName } from "../src/standIns.js";

const NETWORK = "lspmesh-xtenant-test";
const RUNNER_CONTAINER = "lspmesh-xtenant-runner";
const NATS_CONTAINER = "lspmesh-xtenant-nats";
const RUNNER_ID = "lspmesh-xtenant-runner-0";
const IN_RUNNER = { ...RUNNER_LAYOUT, attacker: "/opt/lspmesh-attacker/attacker.mjs" };
const CANARY = `GLOBEX-CANARY-${randomBytes(6).toString("hex")}`;

let work: string;
let nats: NatsContainer | undefined;
let gateway: GatewayProcess | undefined;
const clients: Client[] = [];
let workspaces: CrossTenantWorkspaces;
let target: CrossTenantDeployment;
let runnerIp: string;
let volumesBefore: string[] = [];

let cleaning: Promise<void> | undefined;
/** Removes every container and the network this test made, and its files. Idempotent. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const client of clients) await client.close().catch(() => {});
    await gateway?.stop().catch(() => {});
    await podman("rm", "--force", "--time", "5", "--ignore", RUNNER_CONTAINER).catch(() => {});
    await nats?.close().catch(() => {});
    await podman("rm", "--force", "--ignore", NATS_CONTAINER).catch(() => {});
    await podman("network", "rm", "--force", NETWORK).catch(() => {});
    if (work) rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}

describe.skipIf(!needs("podman", "the cross-tenant attacks in the runner image (test:deploy)"))(
  "the cross-tenant attacks against the runner image under podman, restricted",
  () => {
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "lspmesh-xtenant-podman-"));
      // The runner's user reaches the workspaces root below it.
      chmodSync(work, 0o755);
      const nodeBase = dockerfileBase(RUNNER_TYPESCRIPT_IMAGE.dockerfile);
      await ensureNodeStandIn(nodeBase);
      const natsImage = fullImageName(
        workloads(render("overlays/local")).find((w) => w.metadata.name === "lspmesh-nats")!.spec.template.spec
          .containers[0].image as string,
      );
      await ensureNatsStandIn(natsImage, nodeBase);
      await buildImages([RUNNER_TYPESCRIPT_IMAGE]);
      // Anything left by an earlier run that was killed before its cleanup.
      for (const name of [RUNNER_CONTAINER, NATS_CONTAINER]) await podman("rm", "--force", "--ignore", name);
      await podman("network", "rm", "--force", NETWORK).catch(() => {});

      volumesBefore = await podmanNames("volume");
      await podman("network", "create", NETWORK);
      const [natsIp, runner] = await addressesOf(NETWORK);
      runnerIp = runner!;
      nats = await startNatsContainer({
        name: NATS_CONTAINER,
        image: natsImage,
        network: NETWORK,
        ip: natsIp!,
        dir: work,
        tenants: ["acme", "globex"],
        runners: [{ id: RUNNER_ID }],
      });

      // One workspaces root for both tenants, owned by the runner's user (its workers write them).
      const root = join(work, "workspaces");
      workspaces = writeCrossTenantWorkspaces({
        acmeRoot: root,
        globexRoot: root,
        canary: CANARY,
        runnerPath: (path) => path.replace(root, IN_RUNNER.workspaces),
        owner: RUNNER_USER,
      });
      // The Secrets a runner pod mounts: the gRPC secret the gateway also reads, and its NATS password.
      const secrets = runnerSecrets(join(work, "secrets"), nats, [RUNNER_ID]);
      // The languages a shared pool of this image serves (TypeScript, and Python: pyright is in the
      // image), and acme's own language server for `.evil` files.
      const languages = join(work, "languages.json");
      writeFileSync(
        languages,
        JSON.stringify({
          languages: {
            ...Object.fromEntries(["go", "cpp", "rust"].map((id) => [id, { enabled: false }])),
            evil: attackerLanguage("/usr/local/bin/node", IN_RUNNER.attacker),
          },
        }),
      );
      const tenancy = writeTenancyFiles(work, {
        tenants: {
          acme: { workspaces: ["web"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } },
          globex: { workspaces: ["shop"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } },
        },
        keys: {
          acme: { tenant: "acme", scopes: ["lsp:read", "lsp:write"] },
          globex: { tenant: "globex", scopes: ["lsp:read", "lsp:write"] },
        },
      });

      await startRunnerContainer({
        name: RUNNER_CONTAINER,
        image: RUNNER_TYPESCRIPT_IMAGE.tag,
        network: NETWORK,
        ip: runnerIp,
        id: RUNNER_ID,
        pool: "typescript",
        nats,
        workspaces: root,
        secrets,
        volumes: [`${languages}:${IN_RUNNER.languages}:ro`, `${LANGUAGE_SERVER_ATTACKER}:${IN_RUNNER.attacker}:ro`],
      });
      gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy });
      const at = gateway;
      await waitFor("the runner in the gateway's registry", async () => (await at.liveRunners()) === 1, {
        timeoutMs: 60_000,
        intervalMs: 250,
      }).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await containerLogs([RUNNER_CONTAINER, NATS_CONTAINER], gateway)}`);
      });
      target = {
        acme: await connectMcp(at, tenancy.tokens.acme, "cross-tenant-podman", clients),
        globex: await connectMcp(at, tenancy.tokens.globex!, "cross-tenant-podman-globex", clients),
        workspaces,
        runnersAlive: () => containerRunning(RUNNER_CONTAINER),
        niceSwapper: true,
      };
    }, 900_000);

    afterAll(async () => {
      await cleanUp();
    }, 120_000);

    test("the runner runs as uid 10001 with no capability, no-new-privileges, seccomp and a read-only root; its tenant workers are confined by Landlock", async () => {
      const config = JSON.parse(await podman("inspect", "--format", "{{json .HostConfig}}", RUNNER_CONTAINER));
      expect(config.ReadonlyRootfs).toBe(true);
      expect(config.Privileged).toBe(false);
      expect(config.CapAdd ?? []).toEqual([]);
      expect(config.UsernsMode ?? "").toBe("");
      expect((config.SecurityOpt ?? []).filter((option: string) => /seccomp|unconfined/.test(option))).toEqual([]);
      // The runner (pid 1 after the entry point's exec) as the kernel sees it.
      const status = await podman("exec", RUNNER_CONTAINER, "cat", "/proc/1/status");
      const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1]?.trim();
      expect(field("Uid")?.split(/\s+/)).toEqual(Array(4).fill(String(RUNNER_USER.uid)));
      expect(field("CapEff")).toBe("0000000000000000");
      expect(field("CapPrm")).toBe("0000000000000000");
      expect(field("CapBnd")).toBe("0000000000000000");
      expect(field("NoNewPrivs")).toBe("1");
      expect(field("Seccomp")).toBe("2");
      expect(await podman("exec", RUNNER_CONTAINER, "sh", "-c", "touch /probe 2>&1 || true")).toMatch(
        /Read-only file system/,
      );
      // The worker mode it chose: Landlock alone (bubblewrap cannot make its namespaces here).
      const logs = await podmanLogs(RUNNER_CONTAINER);
      const line = logs.split("\n").find((text) => text.includes('"tenant workers: one confined process per tenant"'));
      expect(line, logs.slice(-3000)).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ level: "info", confinement: "landlock" });
    });

    test("control: unconfined in the runner's container, acme's links and absolute paths do reach globex's canary", async () => {
      // The attacks name globex's files by the runner's paths: were those wrong, they would prove nothing.
      const { acmeDir, globexDir, runnerPath } = workspaces;
      for (const path of [
        join(acmeDir, "src/linked.ts"),
        join(acmeDir, "src/relLinked.ts"),
        join(acmeDir, "linkdir/secret.ts"),
        join(globexDir, "src/secret.ts"),
      ]) {
        expect(await podman("exec", RUNNER_CONTAINER, "cat", runnerPath(path)), path).toContain(CANARY);
      }
    });

    test("no read tool answer holds the other tenant's canary, and its tree is unchanged", async () => {
      expect(await readToolsAttack(target)).toEqual([]);
    }, 600_000);

    test("no write tool changes the other tenant's tree or reveals its canary", async () => {
      expect(await writeToolsAttack(target)).toEqual([]);
    }, 300_000);

    test("a symlink to the other tenant created after indexing: search_symbols never returns its declarations", async () => {
      expect(await lateSymlinkAttack(target)).toEqual([]);
    }, 180_000);

    test(`a folder swapped with a symlink to the other tenant during ${RACE_ATTEMPTS} apply_workspace_edit and rename_file calls: its tree is untouched`, async () => {
      expect(await folderSwapRace(target)).toEqual([]);
    }, 600_000);

    test("FIFOs as acme's tsconfig and source files stall acme alone: globex's p99 stays under 2 s, and the runner survives their release", async () => {
      expect(await fifoAttack(target)).toEqual([]);
    }, 300_000);

    test("acme's own language server reads neither globex's file nor the runner's secrets or environment, and connects to neither the runner nor NATS", async () => {
      const targets = {
        files: [
          workspaces.runnerPath(join(workspaces.globexDir, "src/secret.ts")),
          IN_RUNNER.grpcSecret,
          `${IN_RUNNER.natsPasswords}/${RUNNER_ID}`,
        ],
        environCanary: nats!.env(RUNNER_ID).LSPMESH_NATS_PASSWORD!,
        endpoints: [`127.0.0.1:${RUNNER_PORT}`, `${nats!.ip}:${nats!.port}`],
      };
      // The control: the same program run in the runner's container as its user, outside any worker.
      const control = async (targetsFile: string) =>
        JSON.parse(await podman("exec", RUNNER_CONTAINER, "node", IN_RUNNER.attacker, targetsFile)) as AttackAttempt[];
      expect(await languageServerAttack(target, targets, control)).toEqual([]);
    }, 120_000);

    test("everything is removed afterwards: no container, volume or network left", async () => {
      await cleanUp();
      const containers = await podmanNames("container");
      expect(containers.filter((name) => [RUNNER_CONTAINER, NATS_CONTAINER].includes(name))).toEqual([]);
      expect((await podmanNames("volume")).filter((name) => !volumesBefore.includes(name))).toEqual([]);
      expect(await podmanNames("network")).not.toContain(NETWORK);
    });
  },
);
