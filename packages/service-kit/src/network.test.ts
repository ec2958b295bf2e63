import { expect, test } from "vitest";
import { isLoopbackHost } from "./network.js";

test.each([
  ["127.0.0.1", true],
  ["127.1.2.3", true],
  ["localhost", true],
  ["::1", true],
  ["[::1]", true],
  ["0.0.0.0", false],
  ["10.0.0.5", false],
  ["::", false],
])("isLoopbackHost(%s) is %s", (host, loopback) => {
  expect(isLoopbackHost(host)).toBe(loopback);
});
