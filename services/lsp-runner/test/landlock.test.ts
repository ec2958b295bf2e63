// A confined worker, for real: the launcher (src/confinement/launch.ts) confines itself to tenant
// "a"'s folder plus what Node needs, then execs a probe (support/landlockProbe.mjs) that tries to
// reach tenant "b": its files directly, through a symlink, and through a grandchild (/bin/cat);
// a neighbour process of the same user outside the domain (/proc/<pid>/environ, a signal); a TCP
// port and an abstract unix socket of this test. The same probe unconfined reaches all of it —
// the control proving each denial comes from Landlock, not from file modes.
//
// When this test runs as root, the probe and the neighbour run as nobody (65534): on the 6.18
// kernel this was written on, uid 0 could still open PTRACE_MODE_READ files (/proc/<pid>/environ,
// maps) of processes outside its domain, which a non-root uid cannot. Workers never run as root.
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { landlockStatus } from "../src/confinement/landlock.js";
import { confinedNodeArgs, LAUNCH_FAILED_EXIT } from "../src/confinement/launcherArgs.js";
import type { ConfinementPolicy } from "../src/confinement/policy.js";
import { SYSTEM_READ_ONLY, SYSTEM_READ_WRITE } from "../src/confinement/systemPaths.js";

const SUPPORT = join(dirname(fileURLToPath(import.meta.url)), "support");
const REPO = resolve(SUPPORT, "../../../..");
const PROBE = join(SUPPORT, "landlockProbe.mjs");
/** Lets the launcher run from the TypeScript sources (built code would need a build first). */
const SOURCES_HOOK = pathToFileURL(join(SUPPORT, "typescriptSources.mjs")).href;
const NOBODY = 65534;
const asUser = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};

const status = landlockStatus();
const { abi } = status;
const title = abi > 0 ? `Landlock confinement (kernel ABI ${abi})` : `Landlock confinement — skipped: ${status.reason}`;

interface Probe {
  code: number | null;
  stderr: string;
  report: Record<string, string> | undefined;
}

describe.skipIf(abi === 0)(title, () => {
  let root: string;
  let own: string;
  let other: string;
  let tcp: Server;
  let abstract: Server;
  let neighbour: ChildProcess;
  let probeArgument: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "lspmesh-landlock-"));
    chmodSync(root, 0o755);
    own = join(root, "a");
    other = join(root, "b");
    for (const tenant of [own, other]) mkdirSync(tenant);
    writeFileSync(join(own, "file.txt"), "mine");
    writeFileSync(join(other, "secret.txt"), "theirs");
    symlinkSync(join(other, "secret.txt"), join(own, "link-to-other"));
    if (asUser.uid !== undefined)
      for (const path of [own, other, join(own, "file.txt"), join(other, "secret.txt")])
        chownSync(path, asUser.uid, asUser.gid);

    tcp = await listening(
      createServer((socket) => socket.destroy()),
      { host: "127.0.0.1", port: 0 },
    );
    const abstractSocket = `\0lspmesh-landlock-test-${process.pid}`;
    abstract = await listening(
      createServer((socket) => socket.destroy()),
      { path: abstractSocket },
    );
    neighbour = spawn("/bin/sleep", ["600"], { ...asUser, stdio: "ignore", env: { NEIGHBOUR_SECRET: "x" } });
    const port = (tcp.address() as { port: number }).port;
    probeArgument = JSON.stringify({ own, other, neighbourPid: neighbour.pid, tcpPort: port, abstractSocket });
  });

  afterAll(async () => {
    if (neighbour?.exitCode === null && neighbour.signalCode === null) neighbour.kill("SIGKILL");
    await Promise.all([tcp, abstract].map((server) => server && new Promise((done) => server.close(done))));
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const policy = (denyNetwork = true): ConfinementPolicy => ({
    readWrite: [own, ...SYSTEM_READ_WRITE],
    readOnly: [REPO, dirname(realpathSync(process.execPath)), ...SYSTEM_READ_ONLY],
    denyNetwork,
  });
  const confined = (p: ConfinementPolicy) => ["--import", SOURCES_HOOK, ...confinedNodeArgs(p, [PROBE, probeArgument])];

  test("unconfined (control): the probe reaches everything", async () => {
    const { code, report, stderr } = await runProbe([PROBE, probeArgument]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(Object.entries(report ?? {}).filter(([, outcome]) => outcome !== "ok")).toEqual([]);
    expect(Object.keys(report ?? {})).toHaveLength(11);
  });

  test("confined: its own folder only, no way out through links, children, /proc, signals or sockets", async () => {
    const { code, report, stderr } = await runProbe(confined(policy()));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(report).toEqual({
      readOwn: "ok",
      writeOwn: "ok",
      readOther: "EACCES",
      listOther: "EACCES",
      writeOther: "EACCES",
      symlinkToOther: "EACCES",
      // Landlock's ptrace scoping: a domain may not inspect processes outside it.
      neighbourEnviron: "EACCES",
      signalNeighbour: abi >= 6 ? "EPERM" : "ok",
      tcpConnect: abi >= 4 ? "EACCES" : "ok",
      abstractUnixConnect: abi >= 6 ? "EPERM" : "ok",
      // The domain survives exec and fork: the grandchild is as confined as the probe.
      grandchildReadOther: "EACCES",
    });
  });

  test("an IPC channel passes through the launcher; denyNetwork: false leaves TCP open", async () => {
    const { code, report } = await runProbe(confined(policy(false)), { ipc: true });
    expect(code).toBe(0);
    expect(report).toMatchObject({ readOwn: "ok", readOther: "EACCES", tcpConnect: "ok" });
  });

  test("a policy it cannot apply: exit 126 with the reason, and nothing of the program runs", async () => {
    const bad = { ...policy(), readOnlyFiles: [other] };
    const { code, report, stderr } = await runProbe(confined(bad));
    expect(code).toBe(LAUNCH_FAILED_EXIT);
    expect(stderr).toBe(`lspmesh confinement: readOnlyFiles: ${other} is a folder\n`);
    expect(report).toBeUndefined();
  });
});

function listening(server: Server, options: { host?: string; port?: number; path?: string }): Promise<Server> {
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(options, () => done(server));
  });
}

/** Runs node with `args` as the probe's user; its report from stdout or, with `ipc`, its one message. */
function runProbe(args: string[], { ipc = false } = {}): Promise<Probe> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      ...asUser,
      env: { PATH: process.env.PATH },
      stdio: ["ignore", "pipe", "pipe", ...(ipc ? (["ipc"] as const) : [])],
    });
    let stdout = "";
    let stderr = "";
    let message: Record<string, string> | undefined;
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("message", (value) => {
      message = value as Record<string, string>;
    });
    // A limit, not a measurement: the probe takes well under a second.
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("error", fail);
    child.once("close", (code) => {
      clearTimeout(timer);
      const report = ipc ? message : stdout ? (JSON.parse(stdout) as Record<string, string>) : undefined;
      done({ code, stderr, report });
    });
  });
}
