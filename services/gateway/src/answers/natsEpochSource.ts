// Workspace epoch announcements (`lspmesh.epoch.>`) from NATS, for WorkspaceEpochs: delivered by
// a subscription callback as they are read (so a flush's PONG comes after every announcement the
// server sent before it), and the connection's losses and returns.
import { type EpochMessage, epochWildcard } from "@lspmesh/events";
import type { NatsConnection } from "@nats-io/transport-node";
import type { EpochSource } from "./workspaceEpochs.js";

/** Longest wait for a flush, ms (default 1 000): past it, the runner is asked instead. */
export const EPOCH_FLUSH_TIMEOUT_MS = 1_000;

export function natsEpochSource(
  nc: NatsConnection,
  warn: (message: string, fields?: Record<string, unknown>) => void,
): EpochSource {
  return {
    subscribe(onMessage) {
      const subscription = nc.subscribe(epochWildcard(), {
        callback: (error, message) => {
          if (error) {
            // Denied (credentials older than the epoch subject): nothing is heard, nothing remembered.
            warn("workspace epochs not heard; answers are not remembered at the gateway", { error: String(error) });
            return;
          }
          try {
            onMessage(message.json<EpochMessage>());
          } catch {
            // Not JSON: not an announcement.
          }
        },
      });
      return { close: () => subscription.unsubscribe() };
    },
    async flush() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("NATS flush timed out")), EPOCH_FLUSH_TIMEOUT_MS);
      });
      try {
        await Promise.race([nc.flush(), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    onConnectionChange(listener) {
      let stopped = false;
      void (async () => {
        for await (const status of nc.status()) {
          if (stopped) return;
          if (status.type === "disconnect") listener(false);
          else if (status.type === "reconnect") listener(true);
          // The server dropped messages for this client: some announcements may be lost.
          else if (status.type === "slowConsumer") listener(true);
        }
      })().catch(() => {});
      return {
        close: () => {
          stopped = true;
        },
      };
    },
    async close() {
      await nc.close().catch(() => {});
    },
  };
}
