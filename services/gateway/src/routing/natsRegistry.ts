// Connects a RegistryRunnerDirectory to the NATS KV buckets `lspmesh-runners` (the registry) and
// `lspmesh-runner-claims` (the tenants each runner may be routed), wrapped so that routing
// outlives a NATS outage (registryOutage.ts), told by the connection's status events and by the
// registry watch's interruptions.
import {
  createKvBucket,
  NATS_CONNECTION_OPTIONS,
  type NatsClientAuth,
  natsConnectOptions,
  natsServers,
  probedKvWatch,
  RUNNER_CLAIMS_BUCKET,
  RUNNER_REGISTRY_BUCKET,
  RunnerClaims,
} from "@lspmesh/events";
import type { GrpcAuth } from "@lspmesh/grpc";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { OutageTolerantDirectory } from "./registryOutage.js";
import { RegistryRunnerDirectory } from "./runnerDirectory.js";
import { GrpcRunnerHealth } from "./runnerHealth.js";

export interface NatsRegistryOptions {
  /** NATS server URL(s), e.g. nats://nats:4222 (a cluster's: comma-separated or a list). */
  servers: string | string[];
  /** Copies JetStream keeps of the buckets if this creates them (LSPMESH_JETSTREAM_REPLICAS; default 1). */
  replicas?: number;
  /** Credentials (user `gateway` in the shipped authorization) and TLS CA. */
  auth?: NatsClientAuth;
  /** Called for registry entries that are ignored and for watch failures. */
  onProblem?: (message: string, key: string) => void;
  /** Told when an outage starts or ends and when a runner's direct health check changes. */
  onOutage?: (message: string, fields: Record<string, unknown>) => void;
  /** Credentials for the direct health checks during an outage. */
  grpcAuth?: GrpcAuth;
}

/** The registry directory, loaded; its close() also closes the NATS connection. */
export async function openNatsRunnerRegistry(options: NatsRegistryOptions): Promise<OutageTolerantDirectory> {
  const nc = await connect({
    servers: natsServers(options.servers),
    name: "lspmesh-gateway",
    ...natsConnectOptions(options.auth),
    ...NATS_CONNECTION_OPTIONS,
  });
  try {
    const kvm = new Kvm(nc);
    // Created when absent so gateways may start before the first runner; a bucket made by the
    // runners with other settings is opened as it is.
    const [kv, claimsKv] = await Promise.all(
      [RUNNER_REGISTRY_BUCKET, RUNNER_CLAIMS_BUCKET].map((bucket) =>
        createKvBucket(kvm, bucket, { history: 1, replicas: options.replicas ?? 1 }).catch(() => kvm.open(bucket)),
      ),
    );
    // Watches stopped when their consumer is lost with a NATS node (kvWatchProbe.ts), then opened again.
    const claims = new RunnerClaims({ watch: () => probedKvWatch(claimsKv!, { key: ">" }) }, options.onProblem);
    const registry = new RegistryRunnerDirectory(
      { watch: () => probedKvWatch(kv!, { key: ">" }) },
      options.onProblem,
      claims,
    );
    // Claims first: an entry seen before its claims would not be routed for a moment.
    await claims.start();
    await registry.start();
    const directory = new OutageTolerantDirectory(registry, new GrpcRunnerHealth(options.grpcAuth), {
      onChange: options.onOutage,
    });
    // A registry watch stopped (its consumer lost with a NATS node, noticed by its probe) leaves the
    // entries ageing though the connection is up: heartbeats go unseen, as in an outage, until a
    // new watch is open (while JetStream elects a new leader, seconds; longer under load).
    registry.onWatchInterruption((interrupted) =>
      interrupted ? directory.connectionLost("watch") : directory.connectionRestored("watch"),
    );
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect" || status.type === "staleConnection") directory.connectionLost();
        else if (status.type === "reconnect") directory.connectionRestored();
      }
    })();
    const closeDirectory = directory.close.bind(directory);
    directory.close = async () => {
      await closeDirectory();
      if (!nc.isClosed()) await nc.close();
    };
    return directory;
  } catch (error) {
    await nc.close();
    throw error;
  }
}
