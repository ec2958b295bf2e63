// Where the shipped deployment files are, from the deploy tests.
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A path inside the repository. */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(relative, new URL(`file://${REPO_ROOT}`)));
}
