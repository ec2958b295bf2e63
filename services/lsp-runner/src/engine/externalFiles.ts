// Library files outside the workspace that answers may point into: those of the runner's own
// installation (the TypeScript lib files, pyright's bundled typeshed) and of the system (C headers,
// a Go or Python installation). Anything else outside the workspace — another tenant's workspace,
// a home directory — is never shown.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The runner's node_modules folder (with a trailing slash), where its language servers live. */
const RUNNER_MODULES = (() => {
  const typescript = require.resolve("typescript/package.json");
  const at = typescript.lastIndexOf("/node_modules/");
  return at < 0 ? undefined : typescript.slice(0, at + "/node_modules/".length);
})();

/** System library folders, shown by their absolute path. */
const SYSTEM_FOLDERS = ["/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/local/lib/", "/usr/share/"];

/** How an external library file is named in answers; undefined when it must not be shown. */
export function externalName(absolute: string): string | undefined {
  if (absolute.includes("/../")) return undefined;
  if (RUNNER_MODULES && absolute.startsWith(RUNNER_MODULES)) {
    return `node_modules/${absolute.slice(RUNNER_MODULES.length)}`;
  }
  return SYSTEM_FOLDERS.some((folder) => absolute.startsWith(folder)) ? absolute : undefined;
}
