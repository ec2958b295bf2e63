// The one way every lspmesh process stops on SIGINT/SIGTERM: close everything once, then exit.
// A second signal while closing exits at once with 130. Started by `npx` (npm exec), it also stops
// when that npm process is gone: npm does not pass SIGTERM on to the command it runs, which would
// otherwise outlive it, holding its port and its language servers.

export interface ShutdownOptions {
  /** Told when a signal arrives, when a second one forces the exit, and when closing failed. */
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** Exit code after a clean close (default 0; a CI command interrupted exits 130). */
  exitCode?: number;
  /** Signals handled (default SIGINT and SIGTERM). */
  signals?: readonly NodeJS.Signals[];
  /** Stop when the parent process exits (default: when started by npm exec, i.e. `npx`). */
  followParent?: boolean;
}

/** How often the parent is checked, ms (default 1 000). */
const PARENT_CHECK_MS = 1_000;

/** Whether this process was started by `npx` / `npm exec` (npm says so in the environment). */
export function startedByNpmExec(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_command === "exec";
}

/** Calls `close` on the first signal and exits when it settles. Returns a function that stops listening. */
export function closeOnSignals(close: () => Promise<void>, options: ShutdownOptions): () => void {
  let closing = false;
  const signals = options.signals ?? ["SIGINT", "SIGTERM"];
  const onSignal = (signal: NodeJS.Signals, why = `${signal}: shutting down`) => {
    if (closing) {
      options.log(`${signal} again; exiting now`, { signal });
      process.exit(130);
    }
    closing = true;
    options.log(why, { signal });
    close().then(
      () => process.exit(options.exitCode ?? 0),
      (error: unknown) => {
        options.log("error while shutting down", { error: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  // An orphan is re-parented (to init or a subreaper): its ppid changes.
  const parent = process.ppid;
  const parentWatch =
    (options.followParent ?? startedByNpmExec()) && parent > 1
      ? setInterval(() => {
          if (process.ppid !== parent && !closing)
            onSignal("SIGTERM", "the process that started this one exited: shutting down");
        }, PARENT_CHECK_MS).unref()
      : undefined;
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
    clearInterval(parentWatch);
  };
}
