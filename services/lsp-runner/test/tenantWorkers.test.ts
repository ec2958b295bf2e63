// A runner serving two tenants from one volume as a supervisor with one confined worker per tenant
// (LSPMESH_WORKERS=auto): each tenant's servers run in its own worker process; a language server
// that is the attacker's own code (a configured fake server) can reach neither the other tenant's
// files, nor any process's environment outside its worker, nor the runner's secret file, nor the
// runner's TCP ports; killing one tenant's worker does not disturb the other tenant's calls.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type ServiceClient, type ServiceError } from "@lspmesh/grpc";
import { Runner, ServerState } from "@lspmesh/proto";
import { chownTree, waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RunningRunner, startRunner } from "../src/startRunner.js";
import { WORKER_TENANTS, workerConfinements, workerProcessIn, writeTenantWorkspaces } from "./support/workerModes.js";

const CANARY = "GLOBEX-WORKER-CANARY-91c2";
const ENV_CANARY = "RUNNER-ENV-CANARY-5d0e";
const ATTACKER = fileURLToPath(new URL("./support/attackerServer.mjs", import.meta.url));

type Attempt = { what: string; ok: boolean; got?: string; code?: string };

/** The pid of the tsserver working in `workspace` (its current folder), if one runs. */
function tsserverIn(workspace: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("tsserver.js")) continue;
      if (readlinkSync(`/proc/${entry}/cwd`) === workspace) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

let root: string;
let secretFile: string;
let runner: RunningRunner;
let client: ServiceClient<typeof Runner.method>;
let listener: Server | undefined;
let holder: ChildProcess | undefined;

describe.each(workerConfinements("tenantWorkers", "landlock+bwrap"))(
  "tenant workers ($mode)",
  ({ sandbox, workerUser }) => {
    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "lspmesh-workers-"));
      chmodSync(root, 0o755);
      const volume = join(root, "volume");
      writeTenantWorkspaces(volume, (tenant) => ({
        "main.ts": `export const owner = "${tenant}";\n`,
        "probe.evil": "hover here\n",
      }));
      writeFileSync(join(volume, "globex", "web", "src", "secret.ts"), `export const secret = "${CANARY}";\n`);
      // acme imports globex's file by absolute path: a worker confined to acme cannot read it.
      writeFileSync(
        join(volume, "acme", "web", "src", "leak.ts"),
        `import { secret } from "${join(volume, "globex", "web", "src", "secret")}";\nexport const stolen = secret;\n`,
      );
      secretFile = join(root, "grpc-secret");
      writeFileSync(secretFile, "s3cret-value-0123456789abcdef", { mode: 0o600 });
      const languagesFile = join(root, "languages.json");
      writeFileSync(
        languagesFile,
        JSON.stringify({
          languages: {
            evil: {
              extensions: { ".evil": "evil" },
              command: process.execPath,
              args: [ATTACKER],
            },
          },
        }),
      );
      // A process holding a secret in its environment, as the runner holds its NATS password.
      holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], {
        env: { ...process.env, LSPMESH_TEST_ENV_CANARY: ENV_CANARY },
        stdio: "ignore",
      });
      if (workerUser) for (const tenant of WORKER_TENANTS) chownTree(join(volume, tenant), workerUser);
      runner = await startRunner({
        listen: "127.0.0.1:0",
        workspaces: { root: volume },
        workers: "auto",
        sandbox,
        languagesFile,
        stateDir: join(root, "state"),
        metricsListen: "127.0.0.1:0",
        ...(workerUser ? { workerUser } : {}),
      });
      client = createClient(Runner, runner.address);
      // The ports to try, known once they are bound: the runner's gRPC port and another listener.
      listener = createServer((socket) => socket.destroy()).listen(0, "127.0.0.1");
      await once(listener, "listening");
      const ports = [Number(runner.address.split(":").pop()), (listener.address() as AddressInfo).port];
      // What to try, left in the attacker's own workspace (not in its environment, which it reads too).
      writeFileSync(
        join(volume, "acme", "web", "attack-targets.json"),
        JSON.stringify({
          files: [join(volume, "globex", "web", "src", "secret.ts"), secretFile],
          canary: ENV_CANARY,
          ports,
        }),
      );
    }, 120_000);

    afterAll(async () => {
      listener?.close();
      client?.close();
      await runner?.close();
      holder?.kill("SIGKILL");
      rmSync(root, { recursive: true, force: true });
    });

    const hover = (tenant: string, file: string, line: number, column: number) =>
      client.hover(
        {
          workspace: { tenant, workspace: "web" },
          at: { file, target: { case: "position", value: { line, column } } },
        },
        { timeoutMs: 60_000 },
      );

    test("each tenant is answered by its own worker, and another tenant's file stays out of reach", async () => {
      const acme = await hover("acme", "src/main.ts", 1, 14);
      expect(acme.contents).toContain("owner");
      const globex = await hover("globex", "src/main.ts", 1, 14);
      expect(globex.contents).toContain("owner");
      // acme's server cannot read globex's file: the import does not resolve, no canary.
      const stolen = await hover("acme", "src/leak.ts", 2, 14);
      expect(JSON.stringify(stolen)).not.toContain(CANARY);
    });

    test("the supervisor's metrics count the language servers and answers of its workers", async () => {
      const metrics = () => fetch(`http://${runner.metricsAddress}/metrics`).then((response) => response.text());
      // Each worker reports every 2 s: both tenants' TypeScript servers, answered from the first test.
      const text = await waitFor("both workers' servers in the metrics", async () => {
        const body = await metrics();
        const servers = [
          ...body.matchAll(/^lspmesh_runner_language_servers\{language="typescript",state="\w+"\} (\d+)$/gm),
        ];
        return servers.reduce((sum, [, count]) => sum + Number(count), 0) >= 2 && body;
      });
      expect(text).toMatch(/^lspmesh_runner_language_server_restarts_total\{language="typescript"\} 0$/m);
      expect(text).toMatch(/^lspmesh_runner_answer_cache_total\{result="miss"\} [1-9]\d*$/m);
      expect(text).toMatch(/^lspmesh_runner_tenant_workers 2$/m);
    });

    test("a tsserver killed under its worker is noticed: no answer claims ready and empty, and a new one answers", async () => {
      const workspace = join(root, "volume", "acme", "web");
      const tsserver = await waitFor("acme's tsserver", () => tsserverIn(workspace));
      process.kill(tsserver, "SIGKILL");
      const readyAndEmpty: string[] = [];
      // A position not asked before: no remembered answer stands in for the server.
      await waitFor("acme answered by a new tsserver", async () => {
        const answer = await hover("acme", "src/main.ts", 1, 15).catch((error: ServiceError) => error);
        if (!("contents" in answer)) return false;
        if (answer.status?.state === ServerState.READY && !answer.status.partial && answer.contents === "")
          readyAndEmpty.push(JSON.stringify(answer.status));
        return answer.contents.includes("owner");
      });
      expect(readyAndEmpty).toEqual([]);
      expect(tsserverIn(workspace)).not.toBe(tsserver);
    });

    test("a language server running the attacker's code reaches nothing of the other tenant or the runner", async () => {
      const answer = await hover("acme", "src/probe.evil", 1, 1);
      const json = answer.contents.slice(answer.contents.indexOf("["), answer.contents.lastIndexOf("]") + 1);
      const attempts = JSON.parse(json) as Attempt[];
      const outcome = (prefix: string) => attempts.filter((attempt) => attempt.what.startsWith(prefix));
      // globex's file and the runner's secret file: denied by the kernel (EACCES from Landlock;
      // ENOENT where bubblewrap's mount namespace does not even have them).
      expect(outcome("read ")).toEqual([
        expect.objectContaining({ ok: false, code: expect.stringMatching(/^(EACCES|ENOENT)$/) }),
        expect.objectContaining({ ok: false, code: expect.stringMatching(/^(EACCES|ENOENT)$/) }),
      ]);
      // No environment outside the worker is readable (ptrace-scoped /proc/<pid>/environ); unconfined,
      // the same user reads the holder's canary (the control).
      expect(readFileSync(`/proc/${holder?.pid}/environ`, "utf8")).toContain(ENV_CANARY);
      expect(outcome("environ")).toEqual([expect.objectContaining({ ok: false })]);
      // The runner's gRPC port and another loopback listener: TCP connect denied.
      expect(outcome("tcp ")).toEqual([expect.objectContaining({ ok: false }), expect.objectContaining({ ok: false })]);
      expect(answer.contents).not.toContain(CANARY);
    });

    test("a killed worker takes only its own tenant's calls with it, and is replaced on the next call", async () => {
      const volume = join(root, "volume");
      const workerOf = (tenant: string) => workerProcessIn(join(volume, tenant));
      const acmeWorker = await waitFor("acme's worker", () => workerOf("acme"));
      const globexWorker = await waitFor("globex's worker", () => workerOf("globex"));
      expect(acmeWorker).not.toBe(globexWorker);
      expect(acmeWorker).not.toBe(process.pid);
      process.kill(acmeWorker, "SIGKILL");
      expect((await hover("globex", "src/main.ts", 1, 14)).contents).toContain("owner");
      const again = await waitFor("acme answered by a new worker", () =>
        hover("acme", "src/main.ts", 1, 14).catch(() => undefined),
      );
      expect(again.contents).toContain("owner");
      expect(await workerOf("acme")).not.toBe(acmeWorker);
      expect(await workerOf("globex")).toBe(globexWorker);
    });

    test("links made while the worker runs: a loop is INVALID_ARGUMENT naming it, a link into the other tenant is refused and never indexed", async () => {
      const volume = join(root, "volume");
      const acmeSrc = join(volume, "acme", "web", "src");
      const indexed = new Map<string, string>();
      const follower = await waitFor("acme's symbol index", () =>
        runner.symbolIndex.follow("acme", (update) => {
          if (update.type === "file") indexed.set(update.entry.file, JSON.stringify(update.entry));
        }),
      );
      try {
        symlinkSync("loop.ts", join(acmeSrc, "loop.ts"));
        symlinkSync(join(volume, "globex", "web", "src", "secret.ts"), join(acmeSrc, "stolen.ts"));
        writeFileSync(join(acmeSrc, "later.ts"), "export const laterMarker = 1;\n");
        const codeOf = async (file: string) =>
          hover("acme", file, 1, 1).then(
            () => "answered",
            (error: ServiceError) => `${error.metadata.get("lspmesh-error-code")[0]}: ${error.details}`,
          );
        expect(await codeOf("src/loop.ts")).toMatch(/^INVALID_ARGUMENT: 'src\/loop\.ts' is a loop of symbolic links/);
        // Landlock refuses the link's target; in bubblewrap's mount namespace the other tenant's
        // folder does not exist at all, and the link still names where it leads. Either way, nothing of it.
        expect(await codeOf("src/stolen.ts")).toMatch(/^OUTSIDE_WORKSPACE: /);
        // A folder link into the other tenant: no file is read through it, none is moved into it.
        symlinkSync(join(volume, "globex", "web", "src"), join(acmeSrc, "theirs"));
        expect(await codeOf("src/theirs/secret.ts")).toMatch(/^OUTSIDE_WORKSPACE: /);
        const moved = await client
          .renameFile({
            workspace: { tenant: "acme", workspace: "web" },
            file: "src/later.ts",
            newFile: "src/theirs/later.ts",
            apply: true,
          })
          .then(
            () => "applied",
            (error: ServiceError) => `${error.metadata.get("lspmesh-error-code")[0]}: ${error.details}`,
          );
        expect(moved).toMatch(/^OUTSIDE_WORKSPACE: 'src\/theirs\/later\.ts' is outside the workspace/);
        expect(readdirSync(join(volume, "globex", "web", "src"))).not.toContain("later.ts");
        // The indexer saw the new files: the plain one is indexed, the link's target never is.
        await waitFor("the new file indexed", () => indexed.has("src/later.ts"));
        expect([...indexed.values()].join("\n")).not.toContain(CANARY);
      } finally {
        follower.close();
      }
    });
  },
);
