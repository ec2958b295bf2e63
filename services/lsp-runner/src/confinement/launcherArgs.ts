// How a parent starts a confined Node program: spawn(process.execPath, confinedNodeArgs(policy,
// [script, ...args])) runs ./launch.ts, which confines itself and execve's `node script args`.

import { runnerFile } from "../runnerFiles.js";
import { type ConfinementPolicy, encodePolicy } from "./policy.js";

/** The launcher's exit code when it could not confine or exec (nothing of the program ran). */
export const LAUNCH_FAILED_EXIT = 126;

/** The built launcher (dist/confinement/launch.js, also when tests run src/: a process runs dist). */
export const LAUNCHER_PATH = runnerFile("confinement/launch.js");

/** Node's arguments for a confined `node <nodeArgv…>` (Node options may lead nodeArgv, then the script). */
export function confinedNodeArgs(policy: ConfinementPolicy, nodeArgv: readonly string[]): string[] {
  return [LAUNCHER_PATH, encodePolicy(policy), "--", ...nodeArgv];
}
