// Connects a RegistryRunnerDirectory to the NATS KV bucket `lspmesh-runners`.
import { RUNNER_REGISTRY_BUCKET } from "@lspmesh/events";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { RegistryRunnerDirectory } from "./runnerDirectory.js";

export interface NatsRegistryOptions {
  /** NATS server URL(s), e.g. nats://nats:4222. */
  servers: string | string[];
  /** Called for registry entries that are ignored and for watch failures. */
  onProblem?: (message: string, key: string) => void;
}

/** The registry directory, loaded; its close() also closes the NATS connection. */
export async function openNatsRunnerRegistry(options: NatsRegistryOptions): Promise<RegistryRunnerDirectory> {
  const nc = await connect({ servers: options.servers, name: "lspmesh-gateway", maxReconnectAttempts: -1 });
  try {
    const kvm = new Kvm(nc);
    // Created when absent so gateways may start before the first runner; a bucket made by the
    // runners with other settings is opened as it is.
    const kv = await kvm.create(RUNNER_REGISTRY_BUCKET, { history: 1 }).catch(() => kvm.open(RUNNER_REGISTRY_BUCKET));
    const directory = new RegistryRunnerDirectory({ watch: () => kv.watch({ key: ">" }) }, options.onProblem);
    await directory.start();
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
