// NATS down for 60 s under load (npm run test:faults): see src/natsOutage.ts.
import { test } from "vitest";
import { expectOutageHealed, natsOutageUnderLoad } from "../../src/natsOutage.js";

test("NATS down 60 s under load: every call answered, /readyz degraded not down, no diagnostics lost, new runners register", async () => {
  expectOutageHealed(await natsOutageUnderLoad(60_000));
}, 240_000);
