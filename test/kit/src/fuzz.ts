// How many generated cases a property or fuzz test runs, and from which seed. `npm test` runs a few
// hundred per property (the quick tier); `npm run test:faults` sets LSPMESH_TEST_TIER=faults and
// runs the full count. LSPMESH_FUZZ_RUNS and LSPMESH_FUZZ_SEED override both, e.g. to replay the
// seed fast-check prints when a property fails:
//   LSPMESH_FUZZ_SEED=123 LSPMESH_FUZZ_RUNS=10000 npx vitest run badInput
export interface FuzzSettings {
  readonly numRuns: number;
  readonly seed: number;
}

/** The seed every tier starts from unless LSPMESH_FUZZ_SEED names another: runs are repeatable. */
export const DEFAULT_FUZZ_SEED = 20261125;

/** True when `npm run test:faults` runs the tests (the long tier). */
export function isFaultsTier(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LSPMESH_TEST_TIER === "faults";
}

/** `numRuns` (quick tier, or full tier with test:faults) and `seed` for fast-check's assert. */
export function fuzzSettings(
  runs: { quick: number; full: number },
  env: NodeJS.ProcessEnv = process.env,
): FuzzSettings {
  const numRuns =
    positiveInteger(env.LSPMESH_FUZZ_RUNS, "LSPMESH_FUZZ_RUNS") ?? (isFaultsTier(env) ? runs.full : runs.quick);
  const seed = integer(env.LSPMESH_FUZZ_SEED, "LSPMESH_FUZZ_SEED") ?? DEFAULT_FUZZ_SEED;
  return { numRuns, seed };
}

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`${name} must be an integer, got "${value}"`);
  return parsed;
}

function positiveInteger(value: string | undefined, name: string): number | undefined {
  const parsed = integer(value, name);
  if (parsed !== undefined && parsed < 1) throw new Error(`${name} must be at least 1, got "${value}"`);
  return parsed;
}
