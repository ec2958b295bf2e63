import type { EpochMessage } from "@lspmesh/events";
import { expect, test } from "vitest";
import { EpochAnnouncer } from "./epochAnnouncer.js";

test("the moves of one turn are one announcement per workspace and language, published before the next await", async () => {
  const published: EpochMessage[] = [];
  const announcer = new EpochAnnouncer({ publishEpoch: (message) => published.push(message) }, "runner-1");
  announcer.announce("acme", "web", "typescript");
  announcer.announce("acme", "web", "typescript");
  announcer.announce("acme", "web", "");
  announcer.announce("acme", "api", "typescript");
  expect(published).toEqual([]);
  await Promise.resolve();
  expect(published.map(({ tenant, workspace, language, runner }) => [tenant, workspace, language, runner])).toEqual([
    ["acme", "web", "typescript", "runner-1"],
    ["acme", "web", "", "runner-1"],
    ["acme", "api", "typescript", "runner-1"],
  ]);
  announcer.announce("acme", "web", "typescript");
  await Promise.resolve();
  expect(published).toHaveLength(4);
  expect(published[3]!.v).toBe(1);
});
