// NATS down for 10 s (past three runner heartbeats, when every registry entry is stale) under
// load: see src/natsOutage.ts. The 60 s outage is in test/long.
import { test } from "vitest";
import { expectOutageHealed, natsOutageUnderLoad } from "../../src/natsOutage.js";

test("NATS down 10 s under load: every call answered, /readyz degraded not down, no diagnostics lost, new runners register", async () => {
  expectOutageHealed(await natsOutageUnderLoad(10_000));
}, 120_000);
