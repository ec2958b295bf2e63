// Direct worker connections (a runner whose registry entry names a workerAddress): each tenant's
// calls to that runner travel on a channel of their own, tunnelled by an HTTP CONNECT through the
// runner's worker port to the tenant's worker, which answers them itself: one process and two
// encodings fewer per call than the relayed path. The relayed channel (the runner's gRPC port)
// takes a tenant's calls until its channel is connected, and whenever it is not (refused, the
// worker restarting), so a call never waits for a tunnel. The runner checks the secret on the
// CONNECT (Proxy-Authorization); nothing on the tunnel carries it, so the worker never sees it.
import * as grpc from "@grpc/grpc-js";
import { createMultiplexedClient, type Interceptor, type ServiceClient } from "@lspmesh/grpc";
import { ID_PATTERN, Runner, RunnerCalls, WORKER_TARGET_SUFFIX } from "@lspmesh/proto";

type RunnerClient = ServiceClient<typeof Runner.method>;

export interface WorkerChannelsOptions {
  /** host:port of the runner's worker port (its registry entry's workerAddress). */
  workerAddress: string;
  /** The runner's own channel: calls of no tenant, and every tenant's until its tunnel is up. */
  relayed: RunnerClient;
  /** The runner's secret as its calls carry it (`Bearer …`), read per call (rotation); undefined = none. */
  authorization: () => string | undefined;
  channelOptions: grpc.ChannelOptions;
  /** Run around each tunnelled call (the trace span); never the credential's. */
  interceptors: readonly Interceptor[];
  /** Tenants with a tunnel of their own at once, least recently used closed past it; default 64. */
  maxTenants?: number;
}

const DEFAULT_MAX_TENANTS = 64;

/** A RunnerClient sending each tenant's calls through that tenant's tunnel when it is up. */
export function routedByTenant(options: WorkerChannelsOptions): RunnerClient {
  const tunnels = new TenantTunnels(options);
  const client: Record<string, unknown> = {
    channel: options.relayed.channel,
    close: () => tunnels.close(),
  };
  for (const method of Runner.methods) {
    const name = method.localName as keyof typeof Runner.method;
    client[name] = (request: { workspace?: { tenant?: unknown } }, callOptions?: unknown) =>
      (tunnels.clientFor(request?.workspace?.tenant)[name] as (r: unknown, o?: unknown) => Promise<unknown>)(
        request,
        callOptions,
      );
  }
  return client as RunnerClient;
}

interface Tunnel {
  readonly client: RunnerClient;
  readonly channel: ReturnType<grpc.Client["getChannel"]>;
  readonly authorization: string | undefined;
}

class TenantTunnels {
  /** In least recently used order (a used tunnel moves to the end). */
  private readonly byTenant = new Map<string, Tunnel>();
  private closed = false;

  constructor(private readonly options: WorkerChannelsOptions) {}

  /** The tenant's tunnel when it is connected; the relayed channel otherwise (the tunnel then connects). */
  clientFor(tenant: unknown): RunnerClient {
    const { relayed } = this.options;
    if (this.closed || typeof tenant !== "string" || !ID_PATTERN.test(tenant)) return relayed;
    const tunnel = this.tunnelOf(tenant);
    // true: an idle channel starts connecting now, for the calls after this one.
    return tunnel.channel.getConnectivityState(true) === grpc.connectivityState.READY ? tunnel.client : relayed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const tunnel of this.byTenant.values()) tunnel.client.close();
    this.byTenant.clear();
    this.options.relayed.close();
  }

  private tunnelOf(tenant: string): Tunnel {
    const authorization = this.options.authorization();
    let tunnel = this.byTenant.get(tenant);
    if (tunnel) this.byTenant.delete(tenant);
    // A rotated secret: the tunnel was opened with the old one, which the runner will refuse.
    if (tunnel && tunnel.authorization !== authorization) {
      tunnel.client.close();
      tunnel = undefined;
    }
    tunnel ??= this.open(tenant, authorization);
    this.byTenant.set(tenant, tunnel);
    const max = this.options.maxTenants ?? DEFAULT_MAX_TENANTS;
    for (const [oldest, idle] of this.byTenant) {
      if (this.byTenant.size <= max) break;
      idle.client.close();
      this.byTenant.delete(oldest);
    }
    return tunnel;
  }

  private open(tenant: string, authorization: string | undefined): Tunnel {
    const secret = authorization?.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : undefined;
    const client = createMultiplexedClient(
      Runner,
      this.options.workerAddress,
      grpc.credentials.createInsecure(),
      {
        ...this.options.channelOptions,
        // grpc-js's HTTP CONNECT: to the worker port as a proxy, naming the tenant's worker.
        "grpc.http_connect_target": `dns:///${tenant}${WORKER_TARGET_SUFFIX}:1`,
        ...(secret !== undefined ? { "grpc.http_connect_creds": `lspmesh:${secret}` } : {}),
        // Not through a proxy of the environment (http_proxy): the worker port is the proxy.
        "grpc.enable_http_proxy": 0,
      },
      { calls: RunnerCalls, interceptors: this.options.interceptors },
    );
    const channel = client.channel?.getChannel();
    if (!channel) throw new Error("a tunnel's client has a channel");
    return { client, channel, authorization };
  }
}
