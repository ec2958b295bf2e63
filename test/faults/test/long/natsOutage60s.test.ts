// NATS down for 60 s under load (npm run test:faults): see src/natsOutage.ts.
import { expect, test } from "vitest";
import { natsOutageUnderLoad } from "../../src/natsOutage.js";

test("NATS down 60 s under load: every call answered, /readyz degraded not down, no diagnostics lost, new runners register", async () => {
  const report = await natsOutageUnderLoad(60_000);
  const { readyDuringOutage, ...figures } = report;
  console.log(JSON.stringify({ ...figures, readyzDuringOutage: readyDuringOutage.map((answer) => answer.status) }));
  expect(report.failures).toEqual([]);
  expect(report.calls).toBeGreaterThan(20);
  expect(report.readyDuringOutage.length).toBeGreaterThan(0);
  for (const answer of report.readyDuringOutage) expect(answer.status).toBe(200);
  expect(report.readyDuringOutage.at(-1)?.body).toMatch(/^ready \(degraded: runner registry \(NATS\) unreachable/);
  expect(report.outboxAtOutageEnd, "the runners held the outage's diagnostics").toBeGreaterThan(0);
  expect(report.delivered).toBe(report.produced);
  expect(report.droppedTotal).toBe(0);
}, 240_000);
