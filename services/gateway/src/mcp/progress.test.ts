import { create } from "@bufbuild/protobuf";
import { ServerState, WorkspaceStatusAnswerSchema } from "@lspmesh/proto";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import type { RunnerClient, RunnerHandle } from "../routing/runnerRouter.js";
import { pollRunnerProgress } from "./progress.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function runner(workspaceStatus: () => Promise<unknown>): RunnerHandle {
  return { id: "r", address: "r:1", client: { workspaceStatus } as unknown as RunnerClient };
}

const target = { tenant: "acme", workspace: "web" };

test("each interval forwards every language's state and work-done progress, until stopped", async () => {
  const answer = create(WorkspaceStatusAnswerSchema, {
    languages: [
      { language: "typescript", state: ServerState.INDEXING, progress: "indexing 120/900 files" },
      { language: "python", state: ServerState.READY },
    ],
  });
  const status = vi.fn(async () => answer);
  const messages: string[] = [];
  const stop = pollRunnerProgress(runner(status), target, (m) => messages.push(m), 1000);
  expect(status).not.toHaveBeenCalled();
  await vi.advanceTimersByTimeAsync(1000);
  expect(status).toHaveBeenCalledWith({ workspace: target }, { timeoutMs: 1000 });
  expect(messages).toEqual([
    "waiting for the language server (typescript indexing: indexing 120/900 files; python ready)",
  ]);
  await vi.advanceTimersByTimeAsync(1000);
  expect(messages).toHaveLength(2);
  stop();
  stop();
  await vi.advanceTimersByTimeAsync(5000);
  expect(messages).toHaveLength(2);
});

test("a runner that does not answer the poll still yields a heartbeat; polls never overlap", async () => {
  let release: () => void = () => {};
  const status = vi
    .fn()
    .mockImplementationOnce(() => new Promise((_, reject) => (release = () => reject(new Error("down")))));
  const messages: string[] = [];
  const stop = pollRunnerProgress(runner(status), target, (m) => messages.push(m), 100);
  await vi.advanceTimersByTimeAsync(350);
  expect(status).toHaveBeenCalledTimes(1);
  release();
  await vi.advanceTimersByTimeAsync(0);
  expect(messages).toEqual(["waiting for the runner"]);
  stop();
});
