// How a language server is launched: through a few lines of /bin/sh that lower resource limits,
// leave a parent-death watchdog in the server's process group, and then `exec` the server, so the
// server keeps the pid we spawned (which is also its process-group id).
//
// The watchdog is a forked copy of the shell (about 1 MB resident, mostly shared pages) blocked in
// `read` on fd 3, one end of a socket pair whose other end only the runner holds. When the runner
// dies for any reason, SIGKILL included, the kernel closes its end, `read` returns, and the watchdog
// kills the whole process group: the server and everything it spawned that stayed in the group.
// No polling, no pid reuse races, and it works for servers that ignore `processId` and stdin EOF.
// PR_SET_PDEATHSIG (setpriv --pdeathsig) would signal only the server itself, not its helpers.
// The normal ways out (shutdown ladder, crash handling) signal the group, watchdog included.

export interface ChildLimits {
  /** RLIMIT_NOFILE: open files per process (default 4096). */
  openFiles?: number;
  /**
   * RLIMIT_NPROC: a fork-bomb guard. Linux counts every process and thread of the runner's user
   * against it, so it must be generous (default 4096).
   */
  processes?: number;
  /** RLIMIT_CORE 0: no core dumps, which would hold workspace content (default true). */
  noCoreDumps?: boolean;
}

export const DEFAULT_CHILD_LIMITS: Required<ChildLimits> = { openFiles: 4096, processes: 4096, noCoreDumps: true };

export interface LaunchOptions {
  limits?: ChildLimits;
  /** Run the shell (and so the server) inside bubblewrap: its path and arguments (sandbox.ts). */
  sandbox?: { bwrapPath: string; args: readonly string[] };
  /** Leave a parent-death watchdog in the server's process group (default true). */
  parentWatchdog?: boolean;
}

export interface Launch {
  command: string;
  args: string[];
  /** Extra stdio entry for fd 3: the watchdog's end of the runner socket pair. */
  watchdogFd: boolean;
}

/** The shell that starts `command args` with limits and a watchdog; "$@" carries the command verbatim. */
export function serverLaunch(command: string, args: readonly string[], options: LaunchOptions = {}): Launch {
  const limits = { ...DEFAULT_CHILD_LIMITS, ...options.limits };
  const watchdog = options.parentWatchdog ?? true;
  const lines = [
    // Lowers a limit (soft and hard, so the server cannot raise it again); never tries to raise it.
    'cap() { h=$(ulimit -H "$1") || return 0; if [ "$h" = unlimited ] || [ "$h" -gt "$2" ]; then ulimit "$1" "$2"; fi; }',
    `cap -n ${integer(limits.openFiles)}`,
    // dash spells RLIMIT_NPROC -p, bash -u.
    `if ulimit -u >/dev/null 2>&1; then cap -u ${integer(limits.processes)}; else cap -p ${integer(limits.processes)}; fi`,
  ];
  if (limits.noCoreDumps) lines.push("ulimit -c 0");
  // The shell exports PWD of its own accord; the server gets exactly the environment it was given.
  lines.push("unset PWD");
  if (watchdog) lines.push("( read _ <&3; kill -9 0 ) </dev/null >/dev/null 2>&1 &", 'exec "$@" 3<&-');
  else lines.push('exec "$@"');
  const shell = ["/bin/sh", "-c", lines.join("\n"), "lspmesh-language-server", command, ...args];
  // bwrap keeps the process group (no --new-session) and passes fd 3 through to the watchdog.
  if (options.sandbox)
    return { command: options.sandbox.bwrapPath, args: [...options.sandbox.args, ...shell], watchdogFd: watchdog };
  return { command: shell[0]!, args: shell.slice(1), watchdogFd: watchdog };
}

function integer(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`resource limit must be a positive integer, got ${value}`);
  return value;
}
