// The one way the integration tests start a runner: on a workspace (a copy of a test-kit fixture, a
// temporary folder of given files, a folder the test made, or any locator), listening on a free
// port, with a gRPC client for it. close() (or `await using`) closes client and runner — no
// language server survives — and removes what the helper created.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createClient, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { fixtureWorkspace } from "@lspmesh/test-kit";
import {
  type RunnerServer,
  type RunnerServerOptions,
  SingleWorkspaceLocator,
  startRunnerServer,
  type WorkspaceLocator,
} from "../runnerInternals.js";

/** The workspace a single-folder runner serves. */
export const ws = { tenant: "local", workspace: "default" };

export interface FixtureRunnerOptions extends Partial<Omit<RunnerServerOptions, "listen" | "locator">> {
  // The workspace, exactly one of:
  /** A fresh copy of a test-kit fixture (test/kit/fixtures/<name>), served as local/default. */
  fixture?: string;
  /** A temporary folder with these files (path → content), served as local/default. */
  files?: Readonly<Record<string, string>>;
  /** A folder the test made (and removes), served as local/default. */
  dir?: string;
  /** Any locator (a volume of tenants' workspaces, …); the test owns its folders. */
  locator?: WorkspaceLocator;
}

export interface FixtureRunner extends AsyncDisposable {
  /** The served folder ("" with a caller's locator). */
  readonly dir: string;
  /** With `fixture`: the folder outside the workspace that the copy's src/leak.ts links into. */
  readonly outside: string | undefined;
  readonly runner: RunnerServer;
  readonly client: ServiceClient<typeof Runner.method>;
  /** A workspace file's content. */
  read(file: string): string;
  /** Every file of the workspace with its content (the fixture's symlink to outside left out). */
  snapshot(): Record<string, string>;
  /** Closes client and runner (no language server survives), then removes the folder it made. Idempotent. */
  close(): Promise<void>;
}

export async function startFixtureRunner(options: FixtureRunnerOptions): Promise<FixtureRunner> {
  const { fixture, files, dir: given, locator: givenLocator, ...runnerOptions } = options;
  const sources = [fixture, files, given, givenLocator].filter((source) => source !== undefined);
  if (sources.length !== 1) throw new Error("startFixtureRunner: give exactly one of fixture, files, dir, locator");
  const copy = fixture !== undefined ? fixtureWorkspace(fixture) : undefined;
  const made = copy ?? (files !== undefined ? filesWorkspace(files) : undefined);
  const dir = made?.dir ?? given ?? "";
  const locator = givenLocator ?? new SingleWorkspaceLocator(dir, ws.tenant, ws.workspace);
  let runner: RunnerServer;
  try {
    runner = await startRunnerServer({ listen: "127.0.0.1:0", locator, ...runnerOptions });
  } catch (error) {
    made?.[Symbol.dispose]();
    throw error;
  }
  const client = createClient(Runner, runner.address);
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      client.close();
      try {
        await runner.close();
      } finally {
        made?.[Symbol.dispose]();
      }
    })();
    return closing;
  };
  return {
    dir,
    outside: copy?.outside,
    runner,
    client,
    read,
    snapshot() {
      const names = readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
      return Object.fromEntries(names.sort().map((file) => [file, read(file)]));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A temporary folder holding `files`; disposing removes it. */
function filesWorkspace(files: Readonly<Record<string, string>>): Disposable & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-runner-test-"));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}
