// Prometheus metrics of one runner, served on --metrics-listen (off by default): the diagnostics
// outbox (what waits for NATS, and what it had to drop), the NATS connection, and the language
// servers by language and state. Labels stay bounded: languages come from configuration.
import { type MetricsServer, serveMetrics } from "@lspmesh/service-kit";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { AnswerCacheCounts } from "../engine/answerCache.js";
import type { WarmingCounts } from "../engine/answerWarming.js";
import type { RunnerEventBus } from "../events/eventBus.js";
import type { SlotStatus } from "../lsp/pool/sessionSlot.js";
import { MonotonicTotals } from "./monotonicTotals.js";

/** The language servers the session metrics count: an in-process core's, or those tenant workers report. */
export interface ServerStatuses {
  statuses(): ReadonlyArray<Pick<SlotStatus, "language" | "state" | "restarts">>;
}

/**
 * The runner's metrics. `sessions` and `answers` are those of an in-process runner core, or of a
 * supervisor's tenant workers (as they report them; the supervisor adds gauges of its own).
 */
export function runnerMetricsRegistry(
  events: RunnerEventBus,
  sessions?: ServerStatuses,
  answers?: { readonly counts: AnswerCacheCounts; readonly warming?: { readonly counts: WarmingCounts } },
): Registry {
  const registry = new Registry();
  const registers = [registry];
  new Gauge({
    name: "lspmesh_runner_diagnostics_outbox_messages",
    help: "Diagnostics messages waiting to be published (NATS unreachable or refusing), newest per file.",
    registers,
    collect() {
      this.set(events.pendingDiagnostics);
    },
  });
  new Counter({
    name: "lspmesh_runner_diagnostics_dropped_total",
    help: "Diagnostics messages dropped: the outbox overflowed (10 000 files) or NATS refused one 5 times while connected.",
    registers,
    collect() {
      this.reset();
      this.inc(events.droppedDiagnostics);
    },
  });
  new Gauge({
    name: "lspmesh_runner_nats_connected",
    help: "1 while the runner's NATS connection is up (or it runs without NATS), else 0.",
    registers,
    collect() {
      this.set(events.connected ? 1 : 0);
    },
  });
  if (sessions) addSessionMetrics(registry, sessions);
  if (answers) addAnswerCacheMetrics(registry, answers);
  collectDefaultMetrics({ register: registry });
  return registry;
}

function addSessionMetrics(registry: Registry, sessions: ServerStatuses): void {
  const registers = [registry];
  const restarts = new MonotonicTotals();
  new Gauge({
    name: "lspmesh_runner_language_servers",
    help: "Language-server sessions by language and state (starting, indexing, ready, degraded, failed, stopped).",
    labelNames: ["language", "state"],
    registers,
    collect() {
      this.reset();
      for (const status of sessions.statuses()) this.inc({ language: status.language, state: status.state });
    },
  });
  new Counter({
    name: "lspmesh_runner_language_server_restarts_total",
    help: "Restarts of language servers after a failure (crash, hang, stopped process), by language: the rises of the sum over live sessions (a session stopping does not lower it).",
    labelNames: ["language"],
    registers,
    collect() {
      const live = new Map<string, number>();
      for (const { language, restarts: count } of sessions.statuses()) {
        live.set(language, (live.get(language) ?? 0) + count);
      }
      this.reset();
      for (const [language, total] of restarts.update(live)) this.inc({ language }, total);
    },
  });
}

function addAnswerCacheMetrics(
  registry: Registry,
  answers: { readonly counts: AnswerCacheCounts; readonly warming?: { readonly counts: WarmingCounts } },
): void {
  const registers = [registry];
  // A supervisor's counts are its running workers' and fall when one exits.
  const totals = new MonotonicTotals();
  new Counter({
    name: "lspmesh_runner_answer_cache_total",
    help: "Read-only language-server requests by how they were answered: hit (remembered), shared (joined an identical one in flight), miss (asked).",
    labelNames: ["result"],
    registers,
    collect() {
      this.reset();
      for (const [result, total] of totals.update(new Map(Object.entries(answers.counts)))) this.inc({ result }, total);
    },
  });
  const warming = answers.warming;
  if (!warming) return;
  new Counter({
    name: "lspmesh_runner_answer_warming_total",
    help: "Questions asked again in the background after documents were opened (LSPMESH_ANSWER_WARMING): asked, stored (answer kept for the new content epoch), dropped (cancelled, failed, or the epoch moved).",
    labelNames: ["result"],
    registers,
    collect() {
      this.reset();
      for (const [result, total] of Object.entries(warming.counts)) this.inc({ result }, total);
    },
  });
}

/** Serves the runner's registry on GET /metrics at host:port (port 0: a free one). */
export function serveRunnerMetrics(listen: string, registry: Registry): Promise<MetricsServer> {
  return serveMetrics(listen, async () => ({ contentType: registry.contentType, body: await registry.metrics() }));
}
