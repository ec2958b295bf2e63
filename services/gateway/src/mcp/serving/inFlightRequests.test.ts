import { EventEmitter } from "node:events";
import { expect, test } from "vitest";
import { InFlightRequests, type RequestOrigin } from "./inFlightRequests.js";

class Response extends EventEmitter {
  destroyed = false;
  destroy() {
    this.destroyed = true;
    this.emit("close");
  }
}

const agent: RequestOrigin = { tenant: "acme", subject: "key:ci", address: "10.0.0.5" };
const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "hover" } });
const cancel = (requestId: number) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });

test("a cancellation closes the response of the request it names, from the same sender only", () => {
  const registry = new InFlightRequests();
  const first = new Response();
  const second = new Response();
  registry.track(agent, call(1), first);
  registry.track(agent, call(2), second);
  expect(registry.cancel({ ...agent, subject: "key:other" }, cancel(1))).toBe(0);
  expect(registry.cancel({ ...agent, address: "10.0.0.6" }, cancel(1))).toBe(0);
  expect(registry.cancel(agent, cancel(1))).toBe(1);
  expect(first.destroyed).toBe(true);
  expect(second.destroyed).toBe(false);
  expect(registry.size).toBe(1);
  second.destroy();
  expect(registry.size).toBe(0);
});

test("an ambiguous cancellation (two calls with one id from one sender) cancels nothing", () => {
  const registry = new InFlightRequests();
  const a = new Response();
  const b = new Response();
  registry.track(agent, call(7), a);
  registry.track(agent, call(7), b);
  expect(registry.cancel(agent, cancel(7))).toBe(0);
  expect(a.destroyed || b.destroyed).toBe(false);
});

test("notifications and finished requests are not tracked; unknown ids are ignored", () => {
  const registry = new InFlightRequests();
  const response = new Response();
  registry.track(agent, { jsonrpc: "2.0", method: "notifications/initialized" }, response);
  expect(registry.size).toBe(0);
  registry.track(agent, call(3), response);
  response.emit("close");
  expect(registry.size).toBe(0);
  expect(registry.cancel(agent, cancel(3))).toBe(0);
  expect(registry.cancel(agent, "garbage")).toBe(0);
});
