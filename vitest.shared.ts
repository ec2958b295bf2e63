// One vitest configuration for every workspace, in two tiers that run one after the other:
// - unit: `src/**/*.test.ts` beside the code — pure logic, no process, no port — files in parallel;
// - integration: `test/**/*.test.ts` — real language servers, nats-server, HTTP — one file at a
//   time (language servers are heavy on a 2-core machine, and some tests watch processes), or two
//   at a time where a package's config says so (integrationWorkers below).
// `vitest run` runs both; `--project unit` / `--project integration` one tier (npm run test:unit /
// test:integration in each workspace). Long fault, fuzz and soak runs are `npm run test:faults`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * V8's compile cache for the lspmesh processes the tests start (hundreds of CLI, runner, gateway
 * and serve starts; each saves about 0.2 s of compiling its modules). Under node_modules, so
 * nothing outside the checkout is written; `npm ci` fills it for every `lspmesh` command
 * (scripts/warm-compile-cache.mjs, run by `prepare`).
 */
const COMPILE_CACHE = fileURLToPath(new URL("./node_modules/.cache/lspmesh-node-compile", import.meta.url));

/**
 * The shared configuration, its integration tier running `integrationWorkers` files at a time
 * (default 1). Two suit the runner's and the whole-system suites: their files mostly wait on
 * language servers (about half a core busy when run one at a time) and check only processes and
 * folders of their own. The faults tier (LSPMESH_TEST_TIER=faults) always runs one file at a time:
 * its long runs measure latency under load.
 */
export function sharedConfig(integrationWorkers = 1) {
  const workers = process.env.LSPMESH_TEST_TIER === "faults" ? 1 : integrationWorkers;
  return defineConfig({
    test: {
      env: { NODE_COMPILE_CACHE: COMPILE_CACHE },
      testTimeout: 30_000,
      hookTimeout: 60_000,
      passWithNoTests: true,
      projects: [
        {
          extends: true,
          test: {
            name: "unit",
            include: ["src/**/*.test.ts"],
            // Each worker keeps the modules it imported across the files it runs (imports were most
            // of the unit tier's time); unit tests change no process state another file relies on.
            isolate: false,
            sequence: { groupOrder: 0 },
          },
        },
        {
          extends: true,
          test: {
            name: "integration",
            include: ["test/**/*.test.ts"],
            fileParallelism: workers > 1,
            maxWorkers: workers,
            // Each worker runs its files one after another and keeps the modules it imported (the
            // runner's graph takes ~0.7 s per file to import); no test file changes process state
            // another relies on (environment, working folder, module mocks).
            isolate: false,
            sequence: { groupOrder: 1 },
          },
        },
      ],
    },
  });
}

export default sharedConfig();
