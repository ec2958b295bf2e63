// The admin API's write path: the control-plane bucket opened through a second NATS connection as
// the admin identity (LSPMESH_ADMIN_NATS_CREDS), so the gateway's own identity stays read-only.
// Connected on first use and kept; a failed connect is tried again by the next change.
import { NATS_CONNECTION_OPTIONS, type NatsClientAuth, natsConnectOptions, natsServers } from "@lspmesh/events";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { ControlPlaneWriter, ControlPlaneWriterSource } from "./adminService.js";
import { ControlPlaneStore } from "./controlPlaneStore.js";

export class AdminNatsWriter implements ControlPlaneWriterSource {
  private opening: Promise<{ nc: NatsConnection; store: ControlPlaneStore }> | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly options: {
      servers: string;
      auth: NatsClientAuth;
      /** Replicas of the control-plane bucket if this makes it (LSPMESH_JETSTREAM_REPLICAS; default 1). */
      replicas?: number;
    },
  ) {}

  open(): Promise<ControlPlaneWriter> {
    if (this.closing) return Promise.reject(new Error("the gateway is shutting down"));
    this.opening ??= this.connect().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening.then(({ store }) => store);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const opened = await this.opening?.catch(() => undefined);
      await opened?.nc.close();
    })();
    return this.closing;
  }

  private async connect(): Promise<{ nc: NatsConnection; store: ControlPlaneStore }> {
    const nc = await connect({
      servers: natsServers(this.options.servers),
      name: "lspmesh-gateway-admin",
      ...natsConnectOptions(this.options.auth),
      ...NATS_CONNECTION_OPTIONS,
    });
    try {
      return { nc, store: await ControlPlaneStore.open(nc, { replicas: this.options.replicas }) };
    } catch (error) {
      await nc.close();
      throw error;
    }
  }
}
