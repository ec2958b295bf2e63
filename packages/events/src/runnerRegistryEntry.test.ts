import { describe, expect, test } from "vitest";
import { MAX_WARM_SESSIONS, parseSessionId, registryEntryFrom, sessionId } from "./runnerRegistryEntry.js";

const entry = (fields: Record<string, unknown> = {}) => ({
  v: 1,
  id: "r1",
  address: "10.0.0.1:7421",
  languages: ["typescript"],
  pool: "typescript",
  load: 0,
  updatedAt: 1,
  heartbeatMs: 5_000,
  ...fields,
});

describe("registry entries", () => {
  test("session ids are tenant/workspace/language and parse back", () => {
    const session = { tenant: "acme", workspace: "web", language: "typescript-native" };
    expect(sessionId(session)).toBe("acme/web/typescript-native");
    expect(parseSessionId(sessionId(session))).toEqual(session);
    for (const bad of ["acme/web", "acme/web/ts/x", "/web/ts", "acme/../ts", "acme/web/"]) {
      expect(parseSessionId(bad), bad).toBeUndefined();
    }
  });

  test("draining and warm are kept; malformed ones are dropped, the entry still routed", () => {
    expect(registryEntryFrom("r1", entry({ draining: true, warm: ["acme/web/typescript"] })).entry).toMatchObject({
      draining: true,
      warm: ["acme/web/typescript"],
    });
    const odd = registryEntryFrom("r1", entry({ draining: "yes", warm: ["acme/web/typescript", "x", 3] })).entry;
    expect(odd?.draining).toBeUndefined();
    expect(odd?.warm).toEqual(["acme/web/typescript"]);
    const long = Array.from({ length: MAX_WARM_SESSIONS + 50 }, (_, i) => `acme/w${i}/typescript`);
    expect(registryEntryFrom("r1", entry({ warm: long })).entry?.warm).toHaveLength(MAX_WARM_SESSIONS);
    expect(registryEntryFrom("r1", entry()).entry).not.toHaveProperty("warm");
  });

  test("a worker address is kept when it is host:port, dropped otherwise, the entry still routed", () => {
    expect(registryEntryFrom("r1", entry({ workerAddress: "runner-0.runners:7422" })).entry?.workerAddress).toBe(
      "runner-0.runners:7422",
    );
    for (const bad of ["runner-0", "http://x:1", 7422, "a b:1"]) {
      const routed = registryEntryFrom("r1", entry({ workerAddress: bad })).entry;
      expect(routed, String(bad)).toBeDefined();
      expect(routed).not.toHaveProperty("workerAddress");
    }
  });

  test("an entry naming another runner than its key is refused", () => {
    expect(registryEntryFrom("r2", entry()).problem).toBe("id is not its key");
  });
});
