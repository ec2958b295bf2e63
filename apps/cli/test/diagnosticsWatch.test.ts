// `lspmesh diagnostics [--watch]` against a real nats-server: DiagnosticsMessage payloads published
// by the test on the subjects and stream of docs/events.md, as a runner's publisher would.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { DIAGNOSTICS_STREAM, type DiagnosticsMessage, diagnosticsSubject, encodeJson } from "@lspmesh/events";
import { type NatsServer, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { type JetStreamClient, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CLI, runCli } from "./cli.js";

let nats: NatsServer;
let nc: NatsConnection;
let js: JetStreamClient;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
});

afterAll(async () => {
  await nc?.close();
  await nats?.close();
});

function message(workspace: string, file: string, version: number, errors: string[]): DiagnosticsMessage {
  return {
    v: 1,
    tenant: "acme",
    workspace,
    file,
    language: "typescript",
    version,
    contentSha256: "0".repeat(64),
    epoch: 1,
    publishedAt: Date.UTC(2025, 0, 1, 12, 0, version),
    diagnostics: errors.map((text, index) => ({
      range: { start: { line: index + 1, column: 5 }, end: { line: index + 1, column: 9 } },
      severity: 1,
      code: "2322",
      source: "typescript",
      message: text,
    })),
  };
}

async function publish(payload: DiagnosticsMessage): Promise<void> {
  await js.publish(diagnosticsSubject(payload.tenant, payload.workspace, payload.file), encodeJson(payload));
}

const natsArgs = () => ["diagnostics", "--nats", nats.url, "--tenant", "acme", "--workspace", "web"];

test("without the stream: exit 2, saying no runner has published there", async () => {
  const result = await runCli(natsArgs());
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/has no stream LSPMESH_DIAG/);
});

test("an unreachable NATS server: exit 2", async () => {
  const result = await runCli(["diagnostics", "--nats", "nats://127.0.0.1:9"]);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/cannot connect to NATS at nats:\/\/127\.0\.0\.1:9/);
});

test("the current state: the latest message of every file of the workspace, and only that workspace", async () => {
  const manager = await jetstreamManager(nc);
  // As docs/events.md says: one message kept per subject.
  await manager.streams.add({ name: DIAGNOSTICS_STREAM, subjects: ["lspmesh.diag.>"], max_msgs_per_subject: 1 });
  const empty = await runCli([...natsArgs(), "--format", "json"]);
  expect(empty).toEqual({ code: 0, stdout: "", stderr: "" });

  await publish(message("web", "src/a.ts", 1, ["old error"]));
  await publish(message("web", "src/dir.with dots/b.ts", 1, []));
  await publish(message("web", "src/a.ts", 2, ["new error", "second error"]));
  await publish(message("other", "src/a.ts", 7, ["another workspace"]));

  const json = await runCli([...natsArgs(), "--format", "json"]);
  expect(json.code).toBe(0);
  const lines = json.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as DiagnosticsMessage);
  expect(lines.map((m) => [m.workspace, m.file, m.version, m.diagnostics.length])).toEqual([
    ["web", "src/dir.with dots/b.ts", 1, 0],
    ["web", "src/a.ts", 2, 2],
  ]);

  const text = await runCli(natsArgs());
  expect(text.code).toBe(0);
  expect(text.stdout).toBe(
    [
      "12:00:01 src/dir.with dots/b.ts: no problems (version 1, typescript)",
      "12:00:02 src/a.ts: 2 errors (version 2, typescript)",
      "  1:5  error  new error  TS2322",
      "  2:5  error  second error  TS2322",
      "",
    ].join("\n"),
  );
});

test("--watch replays the current state, then prints each change as it is published, until Ctrl-C", async () => {
  const child = spawn(process.execPath, [CLI, ...natsArgs(), "--watch", "--format", "json"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const received: DiagnosticsMessage[] = [];
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      received.push(JSON.parse(buffered.slice(0, end)) as DiagnosticsMessage);
      buffered = buffered.slice(end + 1);
    }
  });
  const exited = once(child, "exit");
  const until = (count: number) => waitFor(`${count} messages printed`, () => received.length >= count);
  try {
    await until(2);
    expect(received.map((m) => [m.file, m.version])).toEqual([
      ["src/dir.with dots/b.ts", 1],
      ["src/a.ts", 2],
    ]);
    await publish(message("other", "src/a.ts", 8, ["not for this watcher"]));
    await publish(message("web", "src/a.ts", 3, []));
    await until(3);
    expect(received.slice(2).map((m) => [m.workspace, m.file, m.version, m.diagnostics.length])).toEqual([
      ["web", "src/a.ts", 3, 0],
    ]);
  } finally {
    child.kill("SIGINT");
  }
  const [code] = await exited;
  expect(code).toBe(0);
  expect(received).toHaveLength(3);
}, 60_000);
