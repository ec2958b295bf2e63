import { type DiagnosticsMessage, encodeJson } from "@lspmesh/events";
import { expect, test } from "vitest";
import { InProcessEventBus } from "./inProcessEventBus.js";

const diagnostics = (file: string, version: number): DiagnosticsMessage => ({
  v: 1,
  tenant: "local",
  workspace: "default",
  file,
  language: "typescript",
  version,
  contentSha256: "h",
  epoch: 1,
  publishedAt: 1,
  diagnostics: [],
});

test("keeps the latest diagnostics per file, like the stream, and forgets deleted files", () => {
  const bus = new InProcessEventBus();
  const heard: number[] = [];
  bus.onDiagnostics((message) => heard.push(message.version));
  bus.publishDiagnostics(diagnostics("a.ts", 1));
  bus.publishDiagnostics(diagnostics("a.ts", 2));
  bus.publishDiagnostics(diagnostics("b.ts", 1));
  expect(bus.latestDiagnostics().map((m) => `${m.file}@${m.version}`)).toEqual(["a.ts@2", "b.ts@1"]);
  bus.clearDiagnostics("local", "default", "a.ts");
  expect(bus.latestDiagnostics().map((m) => m.file)).toEqual(["b.ts"]);
  expect(heard).toEqual([1, 2, 1]);
});

test("file-change announcements reach the workspace's subscribers, and their replies come back", async () => {
  const bus = new InProcessEventBus();
  const received: string[] = [];
  const subscription = bus.subscribeFileEvents("local", "default", async (payload) => {
    received.push(new TextDecoder().decode(payload));
    return { v: 1, runner: "r", applied: 1, refused: [] };
  });
  bus.subscribeFileEvents("local", "other", async () => ({ v: 1, runner: "x", applied: 0, refused: [] }));
  const message = { v: 1 as const, changes: [{ file: "a.ts", kind: "changed" as const }] };
  await expect(bus.announceFileChanges("local", "default", message)).resolves.toEqual([
    { v: 1, runner: "r", applied: 1, refused: [] },
  ]);
  expect(received).toEqual([new TextDecoder().decode(encodeJson(message))]);
  subscription.close();
  await expect(bus.announceFileChanges("local", "default", message)).resolves.toEqual([]);
});

test("the registry keeps one entry per runner until deleted", async () => {
  const bus = new InProcessEventBus();
  const entry = {
    v: 1 as const,
    id: "r1",
    address: "a:1",
    languages: [],
    pool: "p",
    load: 0,
    updatedAt: 1,
    heartbeatMs: 5,
  };
  await bus.putRunner(entry);
  await bus.putRunner({ ...entry, updatedAt: 2 });
  expect(bus.runners()).toEqual([{ ...entry, updatedAt: 2 }]);
  await bus.deleteRunner("r1");
  expect(bus.runners()).toEqual([]);
});
