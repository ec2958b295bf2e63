import { existsSync } from "node:fs";
import { expect, test } from "vitest";
import { confinedNodeArgs, LAUNCHER_PATH } from "./launcherArgs.js";
import { ConfinementError, type ConfinementPolicy, decodePolicy, encodePolicy } from "./policy.js";

const policy: ConfinementPolicy = {
  readWrite: ["/volume/acme/web"],
  readOnly: ["/usr", "/opt/lspmesh"],
  readOnlyFiles: ["/etc/ld.so.cache"],
  denyNetwork: true,
};

test("a policy survives the command line: one base64url argument, nothing to quote", () => {
  const encoded = encodePolicy(policy);
  expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(decodePolicy(encoded)).toEqual(policy);
});

test.each([
  ["not JSON", Buffer.from("{").toString("base64url"), "not base64url-encoded JSON"],
  ["a relative path", encode({ ...policy, readOnly: ["usr"] }), "readOnly.0: must be an absolute path"],
  ["an unknown key", encode({ ...policy, readEverything: true }), "invalid confinement policy"],
  ["no denyNetwork", encode({ readWrite: [], readOnly: [] }), "denyNetwork"],
])("a policy with %s is refused with the reason", (_what, encoded, reason) => {
  expect(() => decodePolicy(encoded)).toThrow(ConfinementError);
  expect(() => decodePolicy(encoded)).toThrow(reason);
});

test("encodePolicy checks too: a bad policy never reaches a launcher", () => {
  expect(() => encodePolicy({ ...policy, readWrite: ["relative"] })).toThrow(ConfinementError);
});

test("the launcher's command line: launcher, policy, --, then Node's own arguments", () => {
  const args = confinedNodeArgs(policy, ["--max-old-space-size=512", "/opt/lspmesh/worker.js", "acme"]);
  expect(args).toEqual([
    LAUNCHER_PATH,
    encodePolicy(policy),
    "--",
    "--max-old-space-size=512",
    "/opt/lspmesh/worker.js",
    "acme",
  ]);
  expect(existsSync(LAUNCHER_PATH)).toBe(true);
});

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
