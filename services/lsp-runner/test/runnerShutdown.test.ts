// How a runner ends, with real language servers: drained on close (NOT_SERVING first, calls under
// way finish, then every server stops), and killed outright (SIGKILL) without leaving any server
// process behind, even one that ignores its stdin closing, SIGTERM and the `processId` it was given.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { createClient, type ServiceClient, type ServiceError } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { fixtureWorkspace, waitFor } from "@lspmesh/test-kit";
import { service as healthService } from "grpc-health-check";
import { afterEach, expect, test } from "vitest";
import { Message } from "vscode-jsonrpc";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { startFixtureRunner, ws } from "./support/fixtureRunner.js";
import { processesInTheseGroups, processesWorkingIn } from "./support/processes.js";

const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function runnerClient(address: string): ServiceClient<typeof Runner.method> {
  const client = createClient(Runner, address);
  cleanup.push(() => client.close());
  return client;
}

const hoverMain = (client: ServiceClient<typeof Runner.method>) =>
  client.hover({
    workspace: ws,
    at: { file: "src/main.ts", target: { case: "symbol", value: { name: "greeter", lineHint: 3, occurrence: 0 } } },
  });

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};

test("close(): health NOT_SERVING first, the call under way finishes with its answer, then every server stops", async () => {
  const sent: Message[] = [];
  await using env = await startFixtureRunner({
    fixture: "typescript-basic",
    // Waiting for pushed diagnostics keeps the call under way for a while (a pull answers at once).
    languages: new LanguageRegistry([{ ...typescriptLanguage(), diagnosticsPull: undefined }]),
    onServerMessage: ({ message }) => sent.push(message),
  });
  const { runner, client } = env;
  expect((await hoverMain(client)).contents).toContain("PoliteGreeter");
  const [pid] = await runner.sessions.pids();

  const Health = grpc.makeGenericClientConstructor(healthService, "Health");
  const health = new Health(runner.address, grpc.credentials.createInsecure());
  cleanup.push(() => health.close());
  const statuses: string[] = [];
  const watchHealth = health.Watch as (request: { service: string }) => grpc.ClientReadableStream<{ status: string }>;
  const watch = watchHealth.call(health, { service: "lspmesh.v1.Runner" });
  watch.on("error", () => {});
  watch.on("data", ({ status }) => {
    statuses.push(status);
    // A watch is a call under way too: end it once it has told us what we came for.
    if (status === "NOT_SERVING") watch.cancel();
  });
  await waitFor("the health watch to report SERVING", () => statuses.includes("SERVING"));

  // A call under way when close() begins: diagnostics waiting for the server's answer to an edit.
  writeFileSync(join(env.dir, "src/broken.ts"), 'export const flag: boolean = "no";\n');
  const inFlight = client.diagnostics({ workspace: ws, files: ["src/broken.ts"], waitMs: 15_000 });
  const syncsBroken = (m: Message) =>
    Message.isNotification(m) &&
    (m.method === "textDocument/didOpen" || m.method === "textDocument/didChange") &&
    JSON.stringify(m.params).includes("/src/broken.ts");
  await waitFor("the file to reach the server", () => sent.some(syncsBroken));
  const closing = runner.close(20_000);

  const answer = await inFlight;
  expect(answer.files[0]).toMatchObject({ file: "src/broken.ts", fresh: true });
  expect(answer.files[0]?.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column])).toEqual([
    ["2322", 1, 14],
  ]);
  await waitFor("the health watch to report NOT_SERVING", () => statuses.includes("NOT_SERVING"));
  expect(statuses).toEqual(["SERVING", "NOT_SERVING"]);
  const refused = (await hoverMain(client).catch((error: ServiceError) => error)) as ServiceError;
  expect(refused).toBeInstanceOf(Error);

  await closing;
  expect(await processesInTheseGroups([pid!])).toEqual([]);
  expect(await processesWorkingIn(env.dir)).toEqual([]);
});

test("a runner killed with SIGKILL leaves no language-server process behind", async () => {
  // The runner under test is a child process (it is killed): its own construction, in childRunner.mjs.
  const workspace = fixtureWorkspace("typescript-basic");
  cleanup.push(() => workspace[Symbol.dispose]());
  writeFileSync(join(workspace.dir, "main.stub"), "stub\n");
  const script = fileURLToPath(new URL("./support/childRunner.mjs", import.meta.url));
  const child = spawn(process.execPath, [script, workspace.dir], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  cleanup.push(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  const client = runnerClient((JSON.parse(line) as { address: string }).address);

  // A real TypeScript server, answering; and a stubborn one that will never answer initialize.
  expect((await hoverMain(client)).contents).toContain("PoliteGreeter");
  const stubborn = client
    .hover({ workspace: ws, at: { file: "main.stub", target: { case: "position", value: { line: 1, column: 1 } } } })
    .catch((error: ServiceError) => error);
  const servers = await waitFor("both servers and the stubborn one's child to run", async () => {
    const pids = await processesWorkingIn(workspace.dir);
    const names = pids.map(commandOf);
    return names.includes("sleep") && names.filter((n) => n === "node").length >= 2 ? pids : undefined;
  });

  child.kill("SIGKILL");
  await exited;
  await stubborn;
  // SIGKILLed processes take a moment to exit (a large heap is torn down first): wait for both the
  // processes working in the workspace and everything in the servers' groups, then name what is left.
  const remaining = async () => [
    ...new Set([...(await processesWorkingIn(workspace.dir)), ...(await processesInTheseGroups(servers))]),
  ];
  const left = await waitFor(
    "every server process to be gone",
    async () => ((await remaining()).length === 0 ? [] : undefined),
    {
      timeoutMs: 10_000,
    },
  ).catch(remaining);
  expect(left.map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
});
