// A tenant worker's tracing: it has no network, so each span it ends (its language-server requests
// inside a traced call) goes to the supervisor as a worker/spans notification, written before the
// call's answer on the same pipe; the supervisor checks and exports it (workerTraces.ts).
import { startRelayTracing, type Tracing } from "@lspmesh/service-kit";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import { TO_SUPERVISOR } from "./workerProtocol.js";

/** The service name the supervisor's own spans carry; relayed spans are exported under its resource. */
const SERVICE_NAME = "lspmesh-runner";

export function startWorkerTracing(connection: MessageConnection): Promise<Tracing> {
  return startRelayTracing(SERVICE_NAME, (spans) => {
    void connection.sendNotification(TO_SUPERVISOR.spans, { spans }).catch(() => {});
  });
}
