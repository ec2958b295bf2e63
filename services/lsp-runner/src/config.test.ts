import { SettingsError } from "@lspmesh/service-kit";
import { describe, expect, test } from "vitest";
import { runnerConfig } from "./config.js";

describe("runnerConfig", () => {
  test("defaults: a volume at /workspaces, gRPC on 0.0.0.0:7421, no NATS, watching on", () => {
    expect(runnerConfig([], {})).toMatchObject({
      listen: "0.0.0.0:7421",
      workspaces: { root: "/workspaces" },
      natsUrl: undefined,
      watchWorkspaces: true,
      drainMs: 20_000,
      warmUp: [],
      logLevel: "info",
    });
  });

  test("flags win over the environment; blank variables count as unset", () => {
    const config = runnerConfig(["--listen", "127.0.0.1:0", "--languages", "/etc/l.json"], {
      LSPMESH_LISTEN: "0.0.0.0:9",
      LSPMESH_LANGUAGES_FILE: "/other.json",
      LSPMESH_WORKSPACES_ROOT: "/vol",
      LSPMESH_POOL: " ",
    });
    expect(config).toMatchObject({ listen: "127.0.0.1:0", languagesFile: "/etc/l.json", workspaces: { root: "/vol" } });
    expect(config.pool).toBeUndefined();
  });

  test("environment settings in their units", () => {
    const config = runnerConfig([], {
      LSPMESH_SERVER_MEMORY_MB: "512",
      LSPMESH_IDLE_TIMEOUT_S: "60",
      LSPMESH_TENANTS: "acme, globex",
      LSPMESH_WARMUP: "acme/web/typescript",
      LSPMESH_WATCH: "0",
      LSPMESH_HEARTBEAT_MS: "2000",
    });
    expect(config).toMatchObject({
      serverMemoryBytes: 512 * 1024 * 1024,
      idleTimeoutMs: 60_000,
      tenants: ["acme", "globex"],
      warmUp: [{ tenant: "acme", workspace: "web", language: "typescript" }],
      watchWorkspaces: false,
      heartbeatMs: 2000,
    });
  });

  test.each([
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
});
