// Fills V8's compile cache for the `lspmesh` processes the tests start (run by `prepare`, after the
// build, so `npm ci` leaves it warm): each command's modules, loaded once by `lspmesh <command>
// --help`. The tests set NODE_COMPILE_CACHE to the same folder (vitest.shared.ts); without this the
// first `npm test` after a clone compiles every module of hundreds of process starts itself (first
// runs took 350–393 s here, the next ones 287–350 s; that this closes the gap is not yet measured).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CACHE = fileURLToPath(new URL("../node_modules/.cache/lspmesh-node-compile", import.meta.url));
const CLI = fileURLToPath(new URL("../apps/cli/bin/lspmesh.js", import.meta.url));
const COMMANDS = ["serve", "gateway", "runner", "check", "diagnostics", "mcp", "admin", "nats-auth", "grpc-secrets"];

function help(command) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, command, "--help"], {
      stdio: "ignore",
      env: { ...process.env, NODE_COMPILE_CACHE: CACHE },
    });
    child.on("exit", (code) => resolve(code));
    child.on("error", () => resolve(-1));
  });
}

// Two at a time (two cores); a command that fails to start only leaves its modules uncached.
const queue = [...COMMANDS];
await Promise.all(
  [0, 1].map(async () => {
    for (let command = queue.shift(); command; command = queue.shift()) await help(command);
  }),
);
