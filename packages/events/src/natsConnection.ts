// How every lspmesh process connects to NATS: reconnect forever (the client's default gives up
// after 10 attempts, leaving a process that never talks to NATS again), and notice a silently
// dead connection (a peer gone without a FIN, a black-holed network) within seconds: a ping
// every 5 s, and the connection counts as lost after 2 unanswered pings (about 10–15 s) instead
// of the default 2 min × 2.
export const NATS_CONNECTION_OPTIONS = {
  maxReconnectAttempts: -1,
  /** Pause between reconnect attempts, ms. */
  reconnectTimeWait: 1_000,
  /** Client ping interval, ms. */
  pingInterval: 5_000,
  /** Unanswered pings before the connection counts as lost. */
  maxPingOut: 2,
} as const;
