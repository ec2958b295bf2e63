// How every lspmesh process connects to NATS: reconnect forever (the client's default gives up
// after 10 attempts, leaving a process that never talks to NATS again), and notice a silently
// dead connection (a peer gone without a FIN, a black-holed network) within seconds: a ping
// every 5 s, and the connection counts as lost after 2 unanswered pings (about 10–15 s) instead
// of the default 2 min × 2. With a cluster's URLs (LSPMESH_NATS_URL=a,b,c) a client whose server
// is lost reconnects to another one, after a jittered pause so they do not all arrive at once.
/**
 * How JetStream subscribers consume (ordered consumers of LSPMESH_DIAG): pull requests of 5 s, so
 * the server's idle heartbeats come every 2.5 s and a consumer lost with a restarted NATS server
 * is noticed and recreated, from its last sequence, within about 5 s (the client's default of
 * 30 s took 45 s to resume after a restart).
 */
export const ORDERED_CONSUME_OPTIONS = { expires: 5_000 } as const;

export const NATS_CONNECTION_OPTIONS = {
  maxReconnectAttempts: -1,
  /** Pause between reconnect attempts, ms. */
  reconnectTimeWait: 1_000,
  /** Random extra pause added to reconnectTimeWait, ms (plain and TLS connections). */
  reconnectJitter: 500,
  reconnectJitterTLS: 1_000,
  /** Client ping interval, ms. */
  pingInterval: 5_000,
  /** Unanswered pings before the connection counts as lost. */
  maxPingOut: 2,
} as const;

/** NATS server URLs from a setting: one URL or a comma-separated list (LSPMESH_NATS_URL), trimmed. */
export function natsServers(urls: string | readonly string[]): string[] {
  return (typeof urls === "string" ? urls.split(",") : urls).map((url) => url.trim()).filter(Boolean);
}

/** The setting naming how many copies JetStream keeps of each stream and bucket lspmesh creates. */
export const JETSTREAM_REPLICAS_SETTING = "LSPMESH_JETSTREAM_REPLICAS";
/** JetStream's own limit; 3 for a 3-node cluster (an odd number keeps a majority through a loss). */
export const MAX_JETSTREAM_REPLICAS = 5;
