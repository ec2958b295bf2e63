// Clean shutdown on SIGINT/SIGTERM: close everything once, then exit. A second signal while
// closing exits at once (the language servers still get SIGKILL from their own close ladder
// only if it already ran, so the first close is awaited whenever possible).

/** `exitCode`: the code after a clean close (0 for servers; a CI command exits 130, interrupted). */
export function closeOnSignals(close: () => Promise<void>, log: (line: string) => void, exitCode = 0): void {
  let closing = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (closing) {
        log(`lspmesh: ${signal} again; exiting now`);
        process.exit(130);
      }
      closing = true;
      log(`lspmesh: ${signal}: stopping language servers…`);
      close().then(
        () => process.exit(exitCode),
        (error: unknown) => {
          log(`lspmesh: error while stopping: ${String(error)}`);
          process.exit(1);
        },
      );
    });
  }
}
