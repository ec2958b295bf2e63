import { describe, expect, test } from "vitest";
import type { RunnerRouter } from "../routing/runnerRouter.js";
import { GatewayMetrics } from "./metrics.js";

/** A router with one runner whose degraded() says what `why` holds. */
function routerDegraded(why: { now: string | undefined }): RunnerRouter {
  return {
    runners: () => [{ id: "r1", address: "10.0.0.1:7421", live: true, suspect: false, load: 0 }],
    degraded: () => why.now,
  } as Partial<RunnerRouter> as RunnerRouter;
}

const sample = (body: string, name: string) => body.match(new RegExp(`^${name} (\\S+)$`, "m"))?.[1];

describe("lspmesh_runner_registry_outage", () => {
  test("is 1 while routing is degraded (the registry unreachable) and 0 once it is not", async () => {
    const why = { now: "runner registry (NATS) unreachable since …" as string | undefined };
    const metrics = new GatewayMetrics(() => routerDegraded(why));
    expect(sample((await metrics.text()).body, "lspmesh_runner_registry_outage")).toBe("1");
    why.now = undefined;
    expect(sample((await metrics.text()).body, "lspmesh_runner_registry_outage")).toBe("0");
  });

  test("is 0 before the router exists (startup) and for a static runner list", async () => {
    const metrics = new GatewayMetrics(() => undefined);
    expect(sample((await metrics.text()).body, "lspmesh_runner_registry_outage")).toBe("0");
  });
});
