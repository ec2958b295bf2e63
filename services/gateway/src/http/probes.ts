// Liveness, readiness and metrics on the main port. No Host check (probes address the pod by its
// IP) and nothing secret: metrics name tenants, so in token mode they need their own token.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Logger } from "@lspmesh/service-kit";
import type { GatewayMetrics } from "../ops/metrics.js";
import type { Route } from "./routes.js";

const TEXT = { "content-type": "text/plain; charset=utf-8" };

export const healthRoute: Route = (_req, res) => {
  res.writeHead(200, TEXT).end("ok");
};

/** 200 when ready (noting a degraded state), else 503 with why not. */
export function readinessRoute(notReady: () => string | undefined, degraded?: () => string | undefined): Route {
  return (_req, res) => {
    const why = notReady();
    const degradedWhy = why ? undefined : degraded?.();
    res.writeHead(why ? 503 : 200, TEXT).end(why ?? (degradedWhy ? `ready (degraded: ${degradedWhy})` : "ready"));
  };
}

export interface MetricsAccess {
  /** Callers need tokens: /metrics here then needs the metrics token. */
  tokensRequired: boolean;
  metricsToken?: (() => string | undefined) | undefined;
}

/** 404 unless allowed (single-user mode, or the metrics token), so a tenant cannot tell it exists. */
export function metricsRoute(metrics: GatewayMetrics, access: MetricsAccess, logger: Logger): Route {
  return (req, res) => {
    if (!metricsAllowed(req, access)) {
      res
        .writeHead(404, TEXT)
        .end(
          "not found; metrics are served on the metrics listener (LSPMESH_METRICS_LISTEN), or here with the metrics token",
        );
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => res.writeHead(200, { "content-type": contentType }).end(body),
      (error: unknown) => {
        logger.error("metrics failed", { error: String(error) });
        res.writeHead(500).end();
      },
    );
  };
}

function metricsAllowed(req: IncomingMessage, access: MetricsAccess): boolean {
  if (!access.tokensRequired) return true;
  const token = access.metricsToken?.();
  if (!token) return false;
  const given = req.headers.authorization ?? "";
  const expected = `Bearer ${token}`;
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
