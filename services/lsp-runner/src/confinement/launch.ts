// The confined launcher: `node launch.js <policy> -- <node arguments…>` confines itself with the
// policy (base64url JSON, see encodePolicy; confinedNodeArgs builds the whole command line), then
// execve's `node <node arguments…>` in the same process — same pid, same stdio, same environment —
// so the program and everything it starts runs inside the Landlock domain (./landlock.ts says why
// it takes an exec). A parent spawns it like any Node script; the program it names is the worker.
//
// An IPC channel (spawn/fork with "ipc") is handed on: Node consumes NODE_CHANNEL_FD and
// NODE_CHANNEL_SERIALIZATION_MODE at startup and marks the channel's fd close-on-exec, so the
// variables are restored from the environment this process started with and the fd kept open.
// Messages sent before the program is up may be read and lost by this launcher: have the program
// speak first.
//
// On failure nothing runs: one line on stderr and exit code 126 (LAUNCH_FAILED_EXIT).

import { readFileSync, writeSync } from "node:fs";
import { execConfined } from "./landlock.js";
import { LAUNCH_FAILED_EXIT } from "./launcherArgs.js";
import { ConfinementError, decodePolicy } from "./policy.js";

const NODE_IPC_VARIABLES = ["NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"];

/** The named variables as this process was started with them (Node has deleted some from process.env). */
function startupVariables(names: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of readFileSync("/proc/self/environ", "utf8").split("\0")) {
    const equals = entry.indexOf("=");
    const name = entry.slice(0, equals);
    if (equals > 0 && names.includes(name)) found[name] = entry.slice(equals + 1);
  }
  return found;
}

try {
  const [encoded, separator, ...nodeArgv] = process.argv.slice(2);
  if (encoded === undefined || separator !== "--" || nodeArgv.length === 0)
    throw new ConfinementError("usage: launch.js <base64url policy> -- <node arguments…>");
  const policy = decodePolicy(encoded);
  const ipc = process.channel ? startupVariables(NODE_IPC_VARIABLES) : {};
  const keepFds = ipc.NODE_CHANNEL_FD === undefined ? [] : [Number(ipc.NODE_CHANNEL_FD)];
  execConfined(policy, nodeArgv, { ...process.env, ...ipc }, { keepFds });
} catch (error) {
  // stderr by fd: process.stderr may be a libuv stream left non-blocking for the next image.
  writeSync(2, `lspmesh confinement: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(LAUNCH_FAILED_EXIT);
}
