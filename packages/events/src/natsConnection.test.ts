import { expect, test } from "vitest";
import { NATS_CONNECTION_OPTIONS, natsServers } from "./natsConnection.js";

test("LSPMESH_NATS_URL names one server or a cluster's, comma-separated", () => {
  expect(natsServers("nats://nats:4222")).toEqual(["nats://nats:4222"]);
  expect(natsServers(" nats://a:4222, nats://b:4222 ,,nats://c:4222 ")).toEqual([
    "nats://a:4222",
    "nats://b:4222",
    "nats://c:4222",
  ]);
  expect(natsServers(["nats://a:4222", " "])).toEqual(["nats://a:4222"]);
});

test("clients reconnect forever, with jitter", () => {
  expect(NATS_CONNECTION_OPTIONS.maxReconnectAttempts).toBe(-1);
  expect(NATS_CONNECTION_OPTIONS.reconnectJitter).toBeGreaterThan(0);
  expect(NATS_CONNECTION_OPTIONS.reconnectJitterTLS).toBeGreaterThan(0);
});
