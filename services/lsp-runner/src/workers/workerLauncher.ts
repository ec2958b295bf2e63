// Starts a tenant's worker process, confined before any of its code runs: Landlock through the
// confined launcher (confinement/launch.ts): read-write only the tenant's folder and the worker's
// private state folder, read-only the system, this installation and the language servers'
// installations, no TCP, signals and abstract sockets scoped to the worker. Where bubblewrap works
// too, it wraps the launcher (new mount, pid, network… namespaces showing only those paths), so
// both layers hold. The environment is a safelist: no secret, no NATS address, no credential file.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { confinedNodeArgs } from "../confinement/launcherArgs.js";
import type { ConfinementPolicy } from "../confinement/policy.js";
import { SYSTEM_READ_ONLY, SYSTEM_READ_WRITE } from "../confinement/systemPaths.js";
import type { LanguageRegistry } from "../lsp/languages/languageRegistry.js";
import { installationPaths, type Sandbox, sandboxArgs } from "../lsp/process/sandbox.js";
import { runnerFile } from "../runnerFiles.js";

export type Confinement = "landlock" | "landlock+bwrap";

export interface WorkerLauncher {
  /** What confines the workers, as the runner reports it (log, /readyz detail, metrics). */
  readonly confinement: Confinement;
  /**
   * Starts `tenant`'s worker with stdin/stdout (the private pipe) and stderr piped, and an IPC
   * channel when connections are handed to workers (`connections`).
   */
  spawn(tenant: string): ChildProcess;
  /** Every path a worker may read (secrets must be outside all of them). */
  readonly readablePaths: readonly string[];
}

export interface WorkerLauncherOptions {
  /** The volume root holding `<tenant>/<workspace>`. */
  root: string;
  /** Where each tenant's private home and temporary folders are made (`<stateDir>/<tenant>`). */
  stateDir: string;
  languages: LanguageRegistry;
  languagesFile?: string;
  /** bubblewrap around each worker as well, when it works here. */
  bwrap?: Sandbox;
  /**
   * The user workers run as (a runner running as root only). Landlock does not keep a root
   * process from reading other processes' /proc/<pid>/environ; an unprivileged worker, or the
   * pid namespace of bubblewrap, does. The tenant folders must be writable for this user.
   */
  user?: { uid: number; gid: number };
  /**
   * Workers get an IPC channel (fd 3), over which the supervisor hands them the connections it
   * authorized (direct worker connections, workerConnections.ts). Nothing else is sent on it.
   */
  connections?: boolean;
}

// Processes always run the built files (also when tests run this module from src/); the worker
// runs its bundle (scripts/bundle.mjs: it starts in a quarter of the CPU).
const WORKER_MAIN = runnerFile("bundle/workerMain.js");
/** What a worker keeps of the runner's environment (no secret is ever in these). */
const ENVIRONMENT_SAFELIST = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER"];

export function createWorkerLauncher(options: WorkerLauncherOptions): WorkerLauncher {
  // Workers of another user pass through the state folder to their own (0700) folder, never list it.
  if (options.user) chmodSync(options.stateDir, 0o711);
  const installation = runnerInstallation();
  const serverInstallations = options.languages.found().flatMap((language) =>
    installationPaths({
      workspace: options.root,
      command: language.command,
      args: language.args,
      readOnly: language.sandboxReadOnly,
    }),
  );
  const readOnly = unique([installation, ...serverInstallations, ...SYSTEM_READ_ONLY]);
  const readOnlyFiles = options.languagesFile ? [absolute(options.languagesFile)] : [];
  return {
    confinement: options.bwrap ? "landlock+bwrap" : "landlock",
    readablePaths: [...readOnly, ...readOnlyFiles, options.root, options.stateDir],
    spawn(tenant) {
      const tenantDir = join(options.root, tenant);
      const state = join(options.stateDir, tenant);
      const home = join(state, "home");
      const tmp = join(state, "tmp");
      mkdirSync(home, { recursive: true, mode: 0o700 });
      mkdirSync(tmp, { recursive: true, mode: 0o700 });
      const user = options.user;
      if (user) for (const dir of [state, home, tmp]) chownSync(dir, user.uid, user.gid);
      const policy: ConfinementPolicy = {
        readWrite: [tenantDir, state, ...SYSTEM_READ_WRITE],
        readOnly,
        readOnlyFiles,
        denyNetwork: true,
      };
      const env: NodeJS.ProcessEnv = { HOME: home, TMPDIR: tmp };
      for (const key of ENVIRONMENT_SAFELIST) if (process.env[key] !== undefined) env[key] = process.env[key];
      const nodeArgs = confinedNodeArgs(policy, [WORKER_MAIN]);
      const [command, args] = options.bwrap
        ? [
            options.bwrap.bwrapPath,
            [
              ...sandboxArgs({
                workspace: tenantDir,
                command: process.execPath,
                args: [],
                // bwrap mounts the worker's own pid namespace's /proc: the machine's bound over it
                // shows pids the worker cannot match to its children (its servers' process-tree
                // watch saw none, so a killed tsserver went unnoticed).
                readOnly: [...readOnly, ...readOnlyFiles].filter(
                  (path) => path !== "/proc" && !path.startsWith("/proc/"),
                ),
              }),
              "--bind",
              state,
              state,
              "--setenv",
              "TMPDIR",
              tmp,
              process.execPath,
              ...nodeArgs,
            ],
          ]
        : [process.execPath, nodeArgs];
      return spawn(command, args, {
        cwd: tenantDir,
        env,
        stdio: options.connections ? ["pipe", "pipe", "pipe", "ipc"] : ["pipe", "pipe", "pipe"],
        detached: true,
        ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
      });
    },
  };
}

/**
 * The folder this runner is installed in: the highest one above its code holding a node_modules
 * folder (a workspace package has its own node_modules below the repository's). Read-only for
 * workers, which run its code. In the repository that is the checkout; in an image, /app.
 */
function runnerInstallation(): string {
  let found = dirname(realpathSync(WORKER_MAIN));
  for (let dir = found; ; ) {
    if (existsSync(join(dir, "node_modules"))) found = dir;
    const parent = dirname(dir);
    if (parent === dir) return found;
    dir = parent;
  }
}

function absolute(path: string): string {
  return realpathSync(path);
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
