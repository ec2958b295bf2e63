import { expect, test } from "vitest";
import { ServerConsole } from "./serverConsole.js";

test("one line per change: starting, indexing with progress and time, ready with time, failures with why", () => {
  const lines: string[] = [];
  let now = 1_000;
  const console = new ServerConsole(
    (line) => lines.push(line),
    () => now,
  );
  const at = { tenant: "local", workspace: "default", language: "typescript" };
  console.onServerState({ ...at, state: "starting", progress: "" });
  now += 800;
  console.onServerState({ ...at, state: "indexing", progress: "Indexing: 120/900 13%" });
  console.onServerState({ ...at, state: "indexing", progress: "Indexing: 120/900 13%" }); // repeated: quiet
  now += 3_400;
  console.onServerState({ ...at, state: "ready", progress: "" });
  console.onLifecycleEvent({ kind: "failed", ...at, reason: "exited unexpectedly (signal SIGKILL)\nstderr…" });
  expect(lines).toEqual([
    "lspmesh: typescript: starting",
    "lspmesh: typescript: indexing: Indexing: 120/900 13% (0.8 s)",
    "lspmesh: typescript: ready (4.2 s)",
    "lspmesh: typescript: failed — exited unexpectedly (signal SIGKILL); the next request restarts it",
  ]);
});
