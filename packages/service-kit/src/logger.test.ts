import { expect, test } from "vitest";
import { createJsonLogger } from "./logger.js";

test("one JSON object per line, with the service, below-threshold lines dropped", () => {
  const lines: string[] = [];
  const logger = createJsonLogger({ level: "info", service: "runner", write: (line) => lines.push(line) });
  logger.debug("hidden");
  logger.warn("slow", { requestId: "r1", durationMs: 12 });
  expect(lines).toHaveLength(1);
  expect(lines[0]!.endsWith("\n")).toBe(true);
  expect(JSON.parse(lines[0]!)).toMatchObject({
    level: "warn",
    service: "runner",
    msg: "slow",
    requestId: "r1",
    durationMs: 12,
  });
});
