import { expect, test } from "vitest";
import type { RunnerEventBus } from "../events/eventBus.js";
import { runnerMetricsRegistry, type ServerStatuses } from "./runnerMetrics.js";

const events = { pendingDiagnostics: 0, droppedDiagnostics: 0, connected: true } as RunnerEventBus;

async function samples(sessions: ServerStatuses, answers: { counts: { hit: number; shared: number; miss: number } }) {
  const registry = runnerMetricsRegistry(events, sessions, answers);
  return async (name: string) => {
    const metric = await registry.getSingleMetric(name)?.get();
    return Object.fromEntries((metric?.values ?? []).map((value) => [JSON.stringify(value.labels), value.value]));
  };
}

test("language-server restarts only grow when a session that restarted stops (no false reset)", async () => {
  let servers = [
    { language: "typescript", state: "ready" as const, restarts: 2 },
    { language: "typescript", state: "failed" as const, restarts: 1 },
  ];
  const read = await samples({ statuses: () => servers }, { counts: { hit: 0, shared: 0, miss: 0 } });
  const restarts = () => read("lspmesh_runner_language_server_restarts_total");
  expect(await restarts()).toEqual({ '{"language":"typescript"}': 3 });
  servers = [{ language: "typescript", state: "ready", restarts: 2 }];
  expect(await restarts()).toEqual({ '{"language":"typescript"}': 3 });
  servers = [{ language: "typescript", state: "ready", restarts: 4 }];
  expect(await restarts()).toEqual({ '{"language":"typescript"}': 5 });
  expect(await read("lspmesh_runner_language_servers")).toEqual({ '{"language":"typescript","state":"ready"}': 1 });
});

test("answer counts only grow when a tenant worker exits", async () => {
  const answers = { counts: { hit: 4, shared: 1, miss: 6 } };
  const read = await samples({ statuses: () => [] }, answers);
  expect(await read("lspmesh_runner_answer_cache_total")).toEqual({
    '{"result":"hit"}': 4,
    '{"result":"shared"}': 1,
    '{"result":"miss"}': 6,
  });
  answers.counts = { hit: 1, shared: 0, miss: 1 };
  expect(await read("lspmesh_runner_answer_cache_total")).toEqual({
    '{"result":"hit"}': 4,
    '{"result":"shared"}': 1,
    '{"result":"miss"}': 6,
  });
});
