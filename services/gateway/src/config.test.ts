import { expect, test } from "vitest";
import { gatewayConfig } from "./config.js";

test("defaults are single-machine mode on loopback", () => {
  expect(gatewayConfig([], { LSPMESH_RUNNER_ADDRESS: "127.0.0.1:7421" })).toEqual({
    runnerAddress: "127.0.0.1:7421",
    host: "127.0.0.1",
    port: 7420,
    tenant: "local",
    workspace: "default",
    callTimeoutMs: 30_000,
    allowedHosts: undefined,
    allowedOrigins: undefined,
    logLevel: "info",
  });
});

test("flags win over the environment; lists are comma-separated", () => {
  const config = gatewayConfig(["--port", "0", "--workspace", "web"], {
    LSPMESH_RUNNER_ADDRESS: "runner:7421",
    LSPMESH_PORT: "9000",
    LSPMESH_HOST: "0.0.0.0",
    LSPMESH_ALLOWED_HOSTS: "gateway.example.com, lspmesh.internal",
  });
  expect(config).toMatchObject({ port: 0, workspace: "web", host: "0.0.0.0" });
  expect(config.allowedHosts).toEqual(["gateway.example.com", "lspmesh.internal"]);
});

test("bad settings say what to fix", () => {
  expect(() => gatewayConfig([], {})).toThrow(/LSPMESH_RUNNER_ADDRESS/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNER_ADDRESS: "r:1", LSPMESH_PORT: "http" })).toThrow(/whole number/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNER_ADDRESS: "r:1", LSPMESH_TENANT: "Acme" })).toThrow(/invalid tenant/);
  expect(() => gatewayConfig(["--bogus"], { LSPMESH_RUNNER_ADDRESS: "r:1" })).toThrow();
});
