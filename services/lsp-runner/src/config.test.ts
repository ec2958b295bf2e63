import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNatsTrust, mintNatsUser } from "@lspmesh/events";
import { SettingsError } from "@lspmesh/service-kit";
import { describe, expect, test } from "vitest";
import { runnerConfig } from "./config.js";

describe("runnerConfig", () => {
  test("defaults: a volume at /workspaces, gRPC on 127.0.0.1:7421 without credentials, no NATS, watching on", () => {
    expect(runnerConfig([], {})).toMatchObject({
      listen: "127.0.0.1:7421",
      workspaces: { root: "/workspaces" },
      natsUrl: undefined,
      jetstreamReplicas: 1,
      watchWorkspaces: true,
      drainMs: 45_000,
      handoffMs: 15_000,
      warmUp: [],
      logLevel: "info",
    });
    expect(runnerConfig([], {}).grpcAuth).toBeUndefined();
  });

  test("flags win over the environment; blank variables count as unset", () => {
    const config = runnerConfig(["--listen", "127.0.0.1:0", "--languages", "/etc/l.json"], {
      LSPMESH_LISTEN: "10.0.0.1:9",
      LSPMESH_LANGUAGES_FILE: "/other.json",
      LSPMESH_WORKSPACES_ROOT: "/vol",
      LSPMESH_POOL: " ",
    });
    expect(config).toMatchObject({ listen: "127.0.0.1:0", languagesFile: "/etc/l.json", workspaces: { root: "/vol" } });
    expect(config.pool).toBeUndefined();
  });

  test("handoff: on by default within the drain, LSPMESH_HANDOFF=0 off, LSPMESH_HANDOFF_MS its budget", () => {
    expect(runnerConfig([], { LSPMESH_DRAIN_MS: "10000" }).handoffMs).toBe(0);
    expect(runnerConfig([], { LSPMESH_HANDOFF: "0" }).handoffMs).toBe(0);
    expect(runnerConfig([], { LSPMESH_HANDOFF_MS: "5000", LSPMESH_DRAIN_MS: "8000" }).handoffMs).toBe(5_000);
  });

  test("environment settings in their units", () => {
    const config = runnerConfig([], {
      LSPMESH_SERVER_MEMORY_MB: "512",
      LSPMESH_IDLE_TIMEOUT_S: "60",
      LSPMESH_TENANTS: "acme, globex",
      LSPMESH_WARMUP: "acme/web/typescript",
      LSPMESH_WATCH: "0",
      LSPMESH_HEARTBEAT_MS: "2000",
      LSPMESH_JETSTREAM_REPLICAS: "3",
    });
    expect(config).toMatchObject({
      jetstreamReplicas: 3,
      serverMemoryBytes: 512 * 1024 * 1024,
      idleTimeoutMs: 60_000,
      tenants: ["acme", "globex"],
      warmUp: [{ tenant: "acme", workspace: "web", language: "typescript" }],
      watchWorkspaces: false,
      heartbeatMs: 2000,
    });
  });

  test("another address than loopback needs credentials: a shared secret file, mTLS files, or both", () => {
    const secret = { LSPMESH_LISTEN: "0.0.0.0:7421", LSPMESH_GRPC_SECRET_FILE: "/run/secrets/grpc" };
    expect(runnerConfig([], secret).grpcAuth).toEqual({ secretFile: "/run/secrets/grpc" });
    const tls = {
      LSPMESH_GRPC_TLS_CERT: "/t/tls.crt",
      LSPMESH_GRPC_TLS_KEY: "/t/tls.key",
      LSPMESH_GRPC_TLS_CA: "/t/ca.crt",
    };
    expect(runnerConfig(["--listen", "0.0.0.0:1"], tls).grpcAuth).toEqual({
      tls: { certFile: "/t/tls.crt", keyFile: "/t/tls.key", caFile: "/t/ca.crt" },
    });
  });

  test("LSPMESH_WORKER_LISTEN: with a secret on any address, on loopback without; never with mTLS", () => {
    const secret = { LSPMESH_GRPC_SECRET_FILE: "/run/secrets/grpc" };
    expect(runnerConfig([], { ...secret, LSPMESH_WORKER_LISTEN: "0.0.0.0:7422" }).workerListen).toBe("0.0.0.0:7422");
    expect(runnerConfig([], { LSPMESH_WORKER_LISTEN: "127.0.0.1:0" }).workerListen).toBe("127.0.0.1:0");
    expect(runnerConfig([], secret).workerListen).toBeUndefined();
    expect(() => runnerConfig([], { LSPMESH_WORKER_LISTEN: "0.0.0.0:7422" })).toThrow(
      /refusing to take worker connections on 0.0.0.0:7422 without credentials/,
    );
    const tls = { LSPMESH_GRPC_TLS_CERT: "/t/c", LSPMESH_GRPC_TLS_KEY: "/t/k", LSPMESH_GRPC_TLS_CA: "/t/a", ...secret };
    expect(() => runnerConfig([], { ...tls, LSPMESH_WORKER_LISTEN: "0.0.0.0:7422" })).toThrow(
      /LSPMESH_WORKER_LISTEN cannot be used with mTLS/,
    );
    expect(() => runnerConfig([], { LSPMESH_WORKER_LISTEN: "nowhere" })).toThrow(/use host:port/);
  });

  test.each([
    [
      ["--listen", "0.0.0.0:7421"],
      {},
      /refusing to listen on 0.0.0.0:7421 without credentials: set LSPMESH_GRPC_SECRET_FILE/,
    ],
    [[], { LSPMESH_LISTEN: "[::]:7421" }, /without credentials/],
    [
      [],
      { LSPMESH_GRPC_TLS_CERT: "/t/tls.crt" },
      /mTLS needs all of LSPMESH_GRPC_TLS_CERT, LSPMESH_GRPC_TLS_KEY and LSPMESH_GRPC_TLS_CA/,
    ],
    [["--nope"], {}, /--nope/],
    [["extra"], {}, /unexpected argument 'extra'/],
    [["--listen", "nowhere"], {}, /use host:port/],
    [[], { LSPMESH_DRAIN_MS: "soon" }, /LSPMESH_DRAIN_MS 'soon'/],
    [[], { LSPMESH_TENANTS: "Acme" }, /invalid tenant 'Acme'/],
    [[], { LSPMESH_WARMUP: "acme/web" }, /LSPMESH_WARMUP/],
    [[], { LSPMESH_LOG_LEVEL: "loud" }, /LSPMESH_LOG_LEVEL 'loud'/],
  ])("%j %j is refused with a message naming the setting", (argv, env, message) => {
    expect(() => runnerConfig(argv, env)).toThrow(SettingsError);
    expect(() => runnerConfig(argv, env)).toThrow(message);
  });

  test("a runner pool's NATS credential: the id is '<pool>.<name>', by default or checked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lspmesh-runner-config-"));
    try {
      const creds = join(dir, "runner.creds");
      writeFileSync(creds, (await mintNatsUser(await createNatsTrust(), { kind: "runner", pool: "typescript" })).creds);
      const env = { LSPMESH_NATS_CREDS: creds };
      expect(runnerConfig([], env).runnerId).toMatch(/^typescript\.[^.]+$/);
      expect(runnerConfig([], { ...env, LSPMESH_RUNNER_ID: "typescript.pod-0" }).runnerId).toBe("typescript.pod-0");
      for (const id of ["pod-0", "python.pod-0", "typescript.a.b", "typescript."])
        expect(() => runnerConfig([], { ...env, LSPMESH_RUNNER_ID: id })).toThrow(
          /must be 'typescript\.<name>'.*LSPMESH_RUNNER_ID=typescript\.\$\(POD_NAME\)/,
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
