// Prometheus metrics of one gateway (its own registry, so several gateways can share a process
// in tests). Labels stay bounded: tools are a fixed list, tenants come from configuration.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { RunnerRouter } from "../routing/runnerRouter.js";

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly toolCalls: Counter<"tool" | "tenant" | "outcome">;
  readonly toolErrors: Counter<"tool" | "tenant" | "code">;
  readonly toolDuration: Histogram<"tool" | "tenant">;
  readonly runnerCalls: Counter<"runner" | "outcome">;
  readonly rateLimited: Counter<"tenant" | "reason">;
  /** Set by the symbol index cache (SymbolIndexCacheMetrics). */
  readonly symbolIndex: { evictions: Counter; bytes: Gauge; tenants: Gauge };

  /**
   * The tenant label value: the tenant's id, or "-" when tenant labels are off
   * (LSPMESH_METRICS_TENANT_LABELS=0: a monitoring system that may not learn tenant names).
   */
  readonly tenant: (tenant: string) => string;

  constructor(
    router: () => RunnerRouter | undefined,
    options: {
      processMetrics?: boolean;
      tenantLabels?: boolean;
      /** The answer cache's counts (hit, shared, miss), when the gateway remembers answers. */
      answerCache?: () => Readonly<Record<string, number>> | undefined;
    } = {},
  ) {
    this.tenant = options.tenantLabels === false ? () => "-" : (tenant) => tenant;
    const registers = [this.registry];
    this.toolCalls = new Counter({
      name: "lspmesh_tool_calls_total",
      help: "MCP tool calls by tool, tenant and outcome (ok or error).",
      labelNames: ["tool", "tenant", "outcome"],
      registers,
    });
    this.toolErrors = new Counter({
      name: "lspmesh_tool_errors_total",
      help: "MCP tool calls that ended in a tool error, by stable error code.",
      labelNames: ["tool", "tenant", "code"],
      registers,
    });
    this.toolDuration = new Histogram({
      name: "lspmesh_tool_call_duration_seconds",
      help: "Duration of MCP tool calls, from arguments received to answer ready.",
      labelNames: ["tool", "tenant"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.runnerCalls = new Counter({
      name: "lspmesh_runner_calls_total",
      help: "gRPC calls to runners by runner id and outcome (ok, error = answered with an error, unavailable).",
      labelNames: ["runner", "outcome"],
      registers,
    });
    this.rateLimited = new Counter({
      name: "lspmesh_rate_limited_total",
      help: "Requests refused by the per-tenant limits, by reason: rate or concurrency (tool calls, RATE_LIMITED), http (429).",
      labelNames: ["tenant", "reason"],
      registers,
    });
    this.symbolIndex = {
      evictions: new Counter({
        name: "lspmesh_gateway_symbol_index_evictions_total",
        help: "Tenants' symbol indexes dropped from the gateway's memory to stay within its budget (loaded again on their next search).",
        registers,
      }),
      bytes: new Gauge({
        name: "lspmesh_gateway_symbol_index_bytes",
        help: "Estimated memory held by the symbol indexes the gateway has loaded, bytes.",
        registers,
      }),
      tenants: new Gauge({
        name: "lspmesh_gateway_symbol_index_tenants",
        help: "Tenants whose symbol indexes the gateway has loaded (each followed live).",
        registers,
      }),
    };
    new Gauge({
      name: "lspmesh_runner_up",
      help: "1 when a runner is live in the registry and not set aside after a transport failure, else 0.",
      labelNames: ["runner", "address"],
      registers,
      collect() {
        this.reset();
        for (const runner of router()?.runners() ?? []) {
          this.set({ runner: runner.id, address: runner.address }, runner.live && !runner.suspect ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: "lspmesh_runners_live",
      help: "Runners currently live in the registry.",
      registers,
      collect() {
        this.set((router()?.runners() ?? []).filter((runner) => runner.live).length);
      },
    });
    new Gauge({
      name: "lspmesh_runner_registry_outage",
      help: "1 while the runner registry (NATS) cannot be read, or is back but runners' heartbeats are not yet in: routing on the last known runners (checked directly). Else 0.",
      registers,
      collect() {
        this.set(router()?.degraded() === undefined ? 0 : 1);
      },
    });
    if (options.answerCache) answerCacheCounter(this.registry, options.answerCache);
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The gateway answer cache's counts, read at each scrape. */
function answerCacheCounter(registry: Registry, counts: () => Readonly<Record<string, number>> | undefined): void {
  new Counter({
    name: "lspmesh_gateway_answer_cache_total",
    help: "Remembered runner calls by how they were answered: hit (at the gateway), shared (joined an identical call in flight), miss (asked a runner).",
    labelNames: ["result"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [result, total] of Object.entries(counts() ?? {})) this.inc({ result }, total);
    },
  });
}
