// Shared by the operation tests: a runner on a fixture copy, position specs, error capture, and
// short forms of answers.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, type ServiceClient, type ServiceError } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { type FixtureWorkspace, fixtureWorkspace } from "@lspmesh/test-kit";
import {
  type LanguageRegistry,
  type RunnerServer,
  SingleWorkspaceLocator,
  startRunnerServer,
} from "./runnerInternals.js";

export const at = (file: string, line: number, column: number) => ({
  file,
  target: { case: "position" as const, value: { line, column } },
});

export const symbol = (file: string, name: string, lineHint = 0, occurrence = 0) => ({
  file,
  target: { case: "symbol" as const, value: { name, lineHint, occurrence } },
});

/** The gRPC error a call fails with (the test fails when it succeeds). */
export async function failure(call: Promise<unknown>): Promise<ServiceError & { lspmeshCode: string }> {
  const error = (await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: ServiceError) => e,
  )) as ServiceError;
  return Object.assign(error, { lspmeshCode: String(error.metadata?.get("lspmesh-error-code")[0] ?? "") });
}

interface RangeLike {
  start?: { line: number; column: number };
  end?: { line: number; column: number };
}

/** "line:column-line:column". */
export function span(range: RangeLike | undefined): string {
  return `${range?.start?.line}:${range?.start?.column}-${range?.end?.line}:${range?.end?.column}`;
}

/** A workspace edit as "file span → text" lines, for exact comparisons. */
export function editLines(
  edit: { files: Array<{ file: string; edits: Array<{ range?: RangeLike; newText: string }> }> } | undefined,
) {
  return (edit?.files ?? []).flatMap((file) => file.edits.map((e) => `${file.file} ${span(e.range)} → ${e.newText}`));
}

export interface FixtureRunner {
  readonly fixture: FixtureWorkspace;
  readonly runner: RunnerServer;
  readonly client: ServiceClient<typeof Runner.method>;
  /** A workspace file's content. */
  read(file: string): string;
  /** Every file of the workspace with its content (the symlink to outside left out). */
  snapshot(): Record<string, string>;
  /** Closes client and runner (no language server survives) and removes the fixture copy. */
  close(): Promise<void>;
}

/** A runner serving a fresh copy of a fixture workspace as local/default, and a client for it. */
export async function startFixtureRunner(name: string, languages?: LanguageRegistry): Promise<FixtureRunner> {
  const fixture = fixtureWorkspace(name);
  const runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(fixture.dir, "local", "default"),
    languages,
  });
  const client = createClient(Runner, runner.address);
  const read = (file: string) => readFileSync(join(fixture.dir, file), "utf8");
  return {
    fixture,
    runner,
    client,
    read,
    snapshot() {
      const files = readdirSync(fixture.dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name).slice(fixture.dir.length + 1));
      return Object.fromEntries(files.sort().map((file) => [file, read(file)]));
    },
    async close() {
      client.close();
      await runner.close();
      fixture[Symbol.dispose]();
    },
  };
}
