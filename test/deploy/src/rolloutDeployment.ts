// A runner pool rolled in the local deployment (podman/runnerRollout.test.ts): the local overlay
// under podman (localDeployment.ts) with two TypeScript runners, the StatefulSet's pods, each
// stopped as the kubelet stops a pod (SIGTERM, SIGKILL after the grace period) and started again
// with the same id (its pod replaced), and the registry read as the gateways read it.
import { readFileSync } from "node:fs";
import { NATS_USERS, RUNNER_REGISTRY_BUCKET, type RunnerRegistryEntry, rankByHrw } from "@lspmesh/events";
import { Kvm } from "@nats-io/kv";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { type LocalDeployment, startLocalDeployment } from "./localDeployment.js";
import { podman, podmanLogs } from "./podman.js";

export interface RolloutDeployment {
  readonly deployment: LocalDeployment;
  /** The runner ids: `owner` holds the session key's workspace first (HRW), `other` next. */
  readonly owner: string;
  readonly other: string;
  /** The runner's registry entry, when it is there. */
  entry(id: string): Promise<RunnerRegistryEntry | undefined>;
  /** Registered, fresh (3 heartbeats) and not draining. */
  live(id: string): Promise<boolean>;
  /** SIGTERM to the runner, SIGKILL after graceSeconds if it has not exited (podman stop). */
  stop(id: string, graceSeconds: number): Promise<void>;
  /** Its container started again: same pod, same id. */
  start(id: string): Promise<void>;
  /** The runner started a language server for `tenant`/`workspace` since its container last started. */
  startedServerFor(id: string, tenant: string, workspace: string): Promise<boolean>;
  /** Its container stopped (grace period 0: SIGKILL) and started again: its servers are gone. */
  restart(id: string): Promise<void>;
  /** Closes the NATS connection and removes the deployment. Idempotent. */
  close(): Promise<void>;
}

/** Two runners, each with `runnerEnv`; `key` names the session whose owner is `owner`. */
export async function startRolloutDeployment(
  key: { tenant: string; workspace: string; language: string },
  runnerEnv: Readonly<Record<string, string>>,
): Promise<RolloutDeployment> {
  // Every call reaches a runner: remembered at the gateway, the stream's repeated question (and the
  // two lanes' calls joined into one) would hide which runner answered and when.
  const deployment = await startLocalDeployment({
    runners: 2,
    runnerEnv,
    gatewayEnv: { LSPMESH_GATEWAY_ANSWER_CACHE: "0" },
  });
  let nc: NatsConnection | undefined;
  try {
    const authenticator = credsAuthenticator(new TextEncoder().encode(readFileSync(deployment.adminCreds, "utf8")));
    nc = await connect({
      servers: deployment.natsUrl.split(","),
      authenticator,
      inboxPrefix: `_INBOX_${NATS_USERS.admin}`,
    });
  } catch (error) {
    await deployment.close();
    throw error;
  }
  const registry = await new Kvm(nc).open(RUNNER_REGISTRY_BUCKET);
  const [owner, other] = rankByHrw(
    key,
    deployment.runnerIds.map((id) => ({ id })),
  ).map((runner) => runner.id) as [string, string];
  const container = (id: string) => `${deployment.runnerPods[deployment.runnerIds.indexOf(id)]}-runner`;
  const entry = async (id: string) => {
    const value = await registry.get(id);
    return value?.operation === "PUT" ? value.json<RunnerRegistryEntry>() : undefined;
  };
  let closing: Promise<void> | undefined;
  return {
    deployment,
    owner,
    other,
    entry,
    async live(id) {
      const found = await entry(id);
      return found !== undefined && Date.now() - found.updatedAt < 3 * found.heartbeatMs && !found.draining;
    },
    stop: async (id, graceSeconds) => {
      await podman("stop", "--time", String(graceSeconds), container(id));
    },
    start: async (id) => {
      await podman("start", container(id));
    },
    async startedServerFor(id, tenant, workspace) {
      const lines = (await podmanLogs(container(id))).split("\n");
      // Each start of the container logs "runner listening" first: only what follows the last one counts.
      const since = lines.findLastIndex((line) => line.includes('"msg":"runner listening"'));
      return lines
        .slice(Math.max(0, since))
        .some(
          (line) =>
            line.includes('"msg":"language server started"') &&
            line.includes(`"tenant":"${tenant}"`) &&
            line.includes(`"workspace":"${workspace}"`),
        );
    },
    // Stop, then start: `podman restart` of a pod's container fails now and then with "cannot get
    // namespace path unless container … is running" (seen in CI; stop and start do not race so).
    restart: async (id) => {
      await podman("stop", "--time", "0", container(id));
      await podman("start", container(id));
    },
    close() {
      closing ??= (async () => {
        await nc?.close().catch(() => {});
        await deployment.close();
      })();
      return closing;
    },
  };
}
