import { expect, test } from "vitest";
import { gatewayConfig } from "./config.js";

test("defaults are single-machine mode on loopback, without tokens", () => {
  expect(gatewayConfig([], { LSPMESH_RUNNER_ADDRESS: "127.0.0.1:7421" })).toEqual({
    runners: { kind: "static", addresses: ["127.0.0.1:7421"] },
    auth: { kind: "none", tenant: "local", workspace: "default" },
    host: "127.0.0.1",
    port: 7420,
    callTimeoutMs: 30_000,
    allowedHosts: undefined,
    allowedOrigins: undefined,
    publicUrl: undefined,
    logLevel: "info",
    metricsListen: undefined,
    metricsTokenFile: undefined,
    metricsTenantLabels: true,
    maxConnections: 1024,
    unauthenticatedPerSecond: 10,
    answerCacheEntries: 10_000,
    runnerTransport: "stream",
    workerConnections: true,
  });
  expect(
    gatewayConfig([], { LSPMESH_RUNNER_ADDRESS: "127.0.0.1:7421", LSPMESH_GATEWAY_ANSWER_CACHE: "0" })
      .answerCacheEntries,
  ).toBe(0);
  expect(() =>
    gatewayConfig([], { LSPMESH_RUNNER_ADDRESS: "127.0.0.1:7421", LSPMESH_GATEWAY_ANSWER_CACHE: "lots" }),
  ).toThrow(/LSPMESH_GATEWAY_ANSWER_CACHE/);
});

test("flags win over the environment; lists are comma-separated", () => {
  const config = gatewayConfig(
    ["--port", "0", "--runners", "a:1,b:2", "--api-keys", "/k.json", "--tenants", "/t.json"],
    {
      LSPMESH_RUNNERS: "runner:7421",
      LSPMESH_PORT: "9000",
      LSPMESH_HOST: "0.0.0.0",
      LSPMESH_PUBLIC_URL: "https://gateway.example.com",
      LSPMESH_ALLOWED_HOSTS: "gateway.example.com, lspmesh.internal",
    },
  );
  expect(config).toMatchObject({ port: 0, host: "0.0.0.0", runners: { kind: "static", addresses: ["a:1", "b:2"] } });
  expect(config.auth).toEqual({ kind: "tokens", apiKeysFile: "/k.json", jwt: undefined, tenantsFile: "/t.json" });
  expect(config.allowedHosts).toEqual(["gateway.example.com", "lspmesh.internal"]);
});

test("the NATS registry and JWTs", () => {
  const config = gatewayConfig([], {
    LSPMESH_NATS_URL: "nats://nats:4222",
    LSPMESH_HOST: "0.0.0.0",
    LSPMESH_PUBLIC_URL: "https://lspmesh.example.com",
    LSPMESH_JWKS_URL: "https://auth.example.com/.well-known/jwks.json",
    LSPMESH_JWT_ISSUER: "https://auth.example.com/",
    LSPMESH_JWT_AUDIENCE: "https://lspmesh.example.com/mcp",
    LSPMESH_TENANTS_FILE: "/etc/lspmesh/tenants.json",
  });
  expect(config.runners).toEqual({ kind: "nats", url: "nats://nats:4222", auth: {}, jetstreamReplicas: 1 });
  const cluster = { LSPMESH_NATS_URL: "nats://n0:4222,nats://n1:4222,nats://n2:4222", LSPMESH_JETSTREAM_REPLICAS: "3" };
  expect(gatewayConfig([], cluster).runners).toMatchObject({ url: cluster.LSPMESH_NATS_URL, jetstreamReplicas: 3 });
  expect(config.auth).toMatchObject({
    kind: "tokens",
    jwt: { tenantClaim: "tenant", issuer: "https://auth.example.com/" },
  });
});

test("bad settings say what to fix", () => {
  expect(() => gatewayConfig([], {})).toThrow(/LSPMESH_NATS_URL/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "a:1", LSPMESH_NATS_URL: "nats://x" })).toThrow(/not both/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "nohost" })).toThrow(/host:port/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_PORT: "http" })).toThrow(/whole number/);
  expect(() => gatewayConfig([], { LSPMESH_NATS_URL: "nats://x", LSPMESH_JETSTREAM_REPLICAS: "7" })).toThrow(
    /LSPMESH_JETSTREAM_REPLICAS '7': give a whole number from 1 to 5/,
  );
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_TENANT: "Acme" })).toThrow(/invalid tenant/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_HOST: "0.0.0.0" })).toThrow(/without tokens/);
  // Off loopback with tokens, the resource URL must be configured, never taken from Host.
  expect(() =>
    gatewayConfig([], {
      LSPMESH_RUNNERS: "r:1",
      LSPMESH_HOST: "0.0.0.0",
      LSPMESH_API_KEYS_FILE: "/k",
      LSPMESH_TENANTS_FILE: "/t",
    }),
  ).toThrow(/set LSPMESH_PUBLIC_URL/);
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_METRICS_TENANT_LABELS: "no" })).toThrow(
    /LSPMESH_METRICS_TENANT_LABELS/,
  );
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_API_KEYS_FILE: "/k" })).toThrow(
    /LSPMESH_TENANTS_FILE/,
  );
  expect(() =>
    gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_JWKS_URL: "https://x/jwks", LSPMESH_TENANTS_FILE: "/t" }),
  ).toThrow(/LSPMESH_JWT_ISSUER and LSPMESH_JWT_AUDIENCE/);
  expect(() => gatewayConfig(["--bogus"], { LSPMESH_RUNNERS: "r:1" })).toThrow();
});

test("the admin API's write identity goes with the control plane only", () => {
  const control = { LSPMESH_NATS_URL: "nats://nats:4222", LSPMESH_CONTROL: "nats" };
  expect(gatewayConfig([], { ...control, LSPMESH_ADMIN_NATS_CREDS: "/creds/admin.creds" }).auth).toEqual({
    kind: "control",
    jwt: undefined,
    adminNatsCreds: "/creds/admin.creds",
  });
  expect(gatewayConfig([], control).auth).toMatchObject({ kind: "control", adminNatsCreds: undefined });
  expect(() => gatewayConfig([], { LSPMESH_RUNNERS: "r:1", LSPMESH_ADMIN_NATS_CREDS: "/creds/admin.creds" })).toThrow(
    /LSPMESH_ADMIN_NATS_CREDS is for the admin API.*set LSPMESH_CONTROL=nats/,
  );
});

test("runner calls go on streams unless LSPMESH_RUNNER_TRANSPORT=unary", () => {
  const env = { LSPMESH_RUNNER_ADDRESS: "127.0.0.1:7421" };
  expect(gatewayConfig([], env).runnerTransport).toBe("stream");
  expect(gatewayConfig([], { ...env, LSPMESH_RUNNER_TRANSPORT: "unary" }).runnerTransport).toBe("unary");
  expect(gatewayConfig([], { ...env, LSPMESH_RUNNER_TRANSPORT: "stream" }).runnerTransport).toBe("stream");
  expect(() => gatewayConfig([], { ...env, LSPMESH_RUNNER_TRANSPORT: "grpc" })).toThrow(/LSPMESH_RUNNER_TRANSPORT/);
  expect(gatewayConfig([], { ...env, LSPMESH_WORKER_CONNECTIONS: "off" }).workerConnections).toBe(false);
  expect(gatewayConfig([], { ...env, LSPMESH_WORKER_CONNECTIONS: "on" }).workerConnections).toBe(true);
  expect(() => gatewayConfig([], { ...env, LSPMESH_WORKER_CONNECTIONS: "yes" })).toThrow(
    /invalid LSPMESH_WORKER_CONNECTIONS 'yes': use on or off/,
  );
});
