// NATS down for 4 s, past three runner heartbeats of 1 s (every registry entry is stale), under
// load: see src/natsOutage.ts. In the faults tier (npm run test:faults), beside the 60 s outage.
import { test } from "vitest";
import { expectOutageHealed, natsOutageUnderLoad } from "../../src/natsOutage.js";

test("NATS down 4 s (three 1 s heartbeats) under load: every call answered, /readyz degraded not down, no diagnostics lost, new runners register", async () => {
  expectOutageHealed(await natsOutageUnderLoad(4_000, 1_000));
}, 120_000);
