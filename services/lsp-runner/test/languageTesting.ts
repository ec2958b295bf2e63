// Shared by the per-language integration tests: a runner on a temporary copy of a fixture
// workspace with a gRPC client, request builders, and whether a server binary really runs.
import { spawnSync } from "node:child_process";
import { createClient, type ServiceClient, type ServiceError } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { type FixtureWorkspace, fixtureWorkspace } from "@lspmesh/test-kit";
import {
  type LanguageRegistry,
  type RunnerServer,
  SingleWorkspaceLocator,
  startRunnerServer,
} from "./runnerInternals.js";

export const ws = { tenant: "local", workspace: "default" };

export interface FixtureRunner extends AsyncDisposable {
  readonly fixture: FixtureWorkspace;
  readonly runner: RunnerServer;
  readonly client: ServiceClient<typeof Runner.method>;
}

export async function startFixtureRunner(fixtureName: string, languages?: LanguageRegistry): Promise<FixtureRunner> {
  const fixture = fixtureWorkspace(fixtureName);
  const runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(fixture.dir, ws.tenant, ws.workspace),
    languages,
  });
  const client = createClient(Runner, runner.address);
  return {
    fixture,
    runner,
    client,
    async [Symbol.asyncDispose]() {
      client.close();
      await runner.close();
      fixture[Symbol.dispose]();
    },
  };
}

export const at = (file: string, line: number, column: number) => ({
  file,
  target: { case: "position" as const, value: { line, column } },
});

export const symbol = (file: string, name: string, lineHint = 0, occurrence = 0) => ({
  file,
  target: { case: "symbol" as const, value: { name, lineHint, occurrence } },
});

/** "file:line:column" of each location's start, sorted. */
export function places(
  locations: ReadonlyArray<{ file: string; range?: { start?: { line: number; column: number } } }>,
) {
  return locations.map((l) => `${l.file}:${l.range?.start?.line}:${l.range?.start?.column}`).sort();
}

/** The rejected call's gRPC error (the test fails if the call succeeds). */
export async function failureOf(call: Promise<unknown>): Promise<ServiceError> {
  const outcome = await call.then(
    () => undefined,
    (error: ServiceError) => error,
  );
  if (!outcome) throw new Error("expected the call to fail");
  return outcome;
}

/**
 * True when the command runs and exits 0 with these arguments: on PATH is not enough (a rustup
 * proxy for a component that is not installed is on PATH and fails).
 */
export function serverRuns(command: string, args: readonly string[] = ["--version"]): boolean {
  const result = spawnSync(command, args, { stdio: "ignore", timeout: 15_000 });
  return result.status === 0;
}
