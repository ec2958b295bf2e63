// Files of this package that run as processes of their own or are loaded by path: the tenant
// worker, the confinement launcher, tsserver's plugin guard. Found in the package's dist/ through
// its name, so wherever this code runs from (dist/, src/ under the tests, the lspmesh command's
// bundle) the same built files are used.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let packageDir: string | undefined;

/** A built file of this package, e.g. runnerFile("workers/workerMain.js") → <package>/dist/workers/workerMain.js. */
export function runnerFile(relative: string): string {
  packageDir ??= dirname(createRequire(import.meta.url).resolve("@lspmesh/lsp-runner/package.json"));
  return join(packageDir, "dist", relative);
}
