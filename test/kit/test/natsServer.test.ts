import { connect } from "@nats-io/transport-node";
import { expect, test } from "vitest";
import { startNatsServer } from "../src/natsServer.js";

test("a real nats-server starts on a free port, answers, and stops", async () => {
  await using server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  const sub = nc.subscribe("t.x", { max: 1 });
  nc.publish("t.x", "hello");
  for await (const message of sub) expect(message.string()).toBe("hello");
  await nc.close();
  await server.close();
  await expect(connect({ servers: server.url, reconnect: false, timeout: 500 })).rejects.toThrow();
});
