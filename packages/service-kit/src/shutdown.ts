// The one way every lspmesh process stops on SIGINT/SIGTERM: close everything once, then exit.
// A second signal while closing exits at once with 130.

export interface ShutdownOptions {
  /** Told when a signal arrives, when a second one forces the exit, and when closing failed. */
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** Exit code after a clean close (default 0; a CI command interrupted exits 130). */
  exitCode?: number;
  /** Signals handled (default SIGINT and SIGTERM). */
  signals?: readonly NodeJS.Signals[];
}

/** Calls `close` on the first signal and exits when it settles. Returns a function that stops listening. */
export function closeOnSignals(close: () => Promise<void>, options: ShutdownOptions): () => void {
  let closing = false;
  const signals = options.signals ?? ["SIGINT", "SIGTERM"];
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      options.log(`${signal} again; exiting now`, { signal });
      process.exit(130);
    }
    closing = true;
    options.log(`${signal}: shutting down`, { signal });
    close().then(
      () => process.exit(options.exitCode ?? 0),
      (error: unknown) => {
        options.log("error while shutting down", { error: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
