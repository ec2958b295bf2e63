// Picks runners for a route key: HRW order over the live runners that serve the language and
// admit the tenant, with runners that just failed at the transport level set aside for a while.
// Holds one gRPC channel (with keepalive) per runner address.

import { admitsTenant, type RouteKey, rankByHrw, servesLanguage } from "@lspmesh/events";
import {
  callMetadataInterceptor,
  clientTracingInterceptor,
  createClient,
  createMultiplexedClient,
  GRPC_AUTHORIZATION_KEY,
  GrpcAuth,
  MAX_GRPC_MESSAGE_BYTES,
  type ServiceClient,
} from "@lspmesh/grpc";
import { Runner, RunnerCalls } from "@lspmesh/proto";
import { tracingEnabled } from "@lspmesh/service-kit";
import { GatewayError } from "../errors.js";
import { ANY_LANGUAGE, type RunnerDirectory, type RunnerEntry } from "./runnerDirectory.js";
import { routedByTenant } from "./workerChannels.js";

/** A typed, promise-based client of the lspmesh.v1.Runner service. */
export type RunnerClient = ServiceClient<typeof Runner.method>;

export interface RunnerHandle {
  readonly id: string;
  readonly address: string;
  readonly client: RunnerClient;
}

export interface RunnerRouter {
  /** Runners for this key, best first. Throws UNAVAILABLE / NO_LANGUAGE_SERVER when there is none. */
  candidates(key: RouteKey): RunnerHandle[];
  /**
   * The language a file is routed by, from the extensions the live runners admitting this tenant
   * advertise; "" when only a runner that decides for itself (a static one) could serve it. Throws
   * NO_LANGUAGE_SERVER when no runner serves the file's extension.
   */
  languageOf(tenant: string, file: string): string;
  /** Languages the live runners admitting this tenant serve (no wildcard); for workspace-wide calls. */
  languagesFor(tenant: string): string[];
  /** A runner failed at the transport level: rank it last for a while. */
  reportUnavailable(id: string): void;
  /** A runner answered: it is healthy again. */
  reportAnswered(id: string): void;
  /** Every runner known, for /readyz and metrics. */
  runners(): Array<{ id: string; address: string; live: boolean; suspect: boolean; load: number }>;
  /** True once the runner source is loaded and at least one runner is live. */
  ready(): boolean;
  /** Why routing is degraded (the registry unreachable), or undefined. */
  degraded(): string | undefined;
  /** Closes channels and the directory. Idempotent. */
  close(): Promise<void>;
}

/** gRPC channel options: keepalive pings notice a dead peer without waiting for a call's deadline. */
const CHANNEL_OPTIONS = {
  "grpc.keepalive_time_ms": 20_000,
  "grpc.keepalive_timeout_ms": 5_000,
  "grpc.keepalive_permit_without_calls": 1,
  "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES,
  // Reconnect quickly after a runner restarts (default backoff grows to 120 s).
  "grpc.max_reconnect_backoff_ms": 5_000,
  "grpc.initial_reconnect_backoff_ms": 200,
} as const;

/** How long a runner that failed at the transport level is ranked last, in ms. */
export const DEFAULT_SUSPECT_MS = 15_000;

export class HrwRunnerRouter implements RunnerRouter {
  private readonly channels = new Map<string, { address: string; workerAddress?: string; client: RunnerClient }>();
  private readonly suspectUntil = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly directory: RunnerDirectory,
    private readonly options: {
      suspectMs?: number;
      now?: () => number;
      /** Credentials every runner call carries (mTLS and/or the shared secret); default none. */
      grpcAuth?: GrpcAuth;
      /** A client of this runner other than a gRPC channel to its address (one in this process), or undefined. */
      connect?: (entry: RunnerEntry) => RunnerClient | undefined;
      /** Wraps each gRPC channel's client (the gateway's answer cache); not applied to `connect`'s clients. */
      decorate?: (runnerId: string, client: RunnerClient) => RunnerClient;
      /**
       * "stream" (default): each runner's calls on one long-lived stream of calls (RunnerCalls), unary
       * calls to runners without it; "unary": one gRPC call each (LSPMESH_RUNNER_TRANSPORT).
       */
      transport?: "stream" | "unary";
      /**
       * Calls go straight to a tenant's worker on runners that offer it (their entry's
       * workerAddress; workerChannels.ts), not with mTLS or unary calls; default true
       * (LSPMESH_WORKER_CONNECTIONS).
       */
      workerConnections?: boolean;
    } = {},
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  candidates(key: RouteKey): RunnerHandle[] {
    if (this.closed) throw new GatewayError("UNAVAILABLE", "the gateway is shutting down; try again shortly");
    const live = this.directory.live(this.now());
    const admitting = live.filter((entry) => admitsTenant(entry, key.tenant));
    if (admitting.length === 0) throw noRunnerLive();
    const serving = admitting.filter((entry) => servesLanguage(entry, key.language));
    if (serving.length === 0) {
      throw new GatewayError(
        "NO_LANGUAGE_SERVER",
        `no runner serves ${key.language} files; ask the operator to deploy a ${key.language} runner pool`,
      );
    }
    const now = this.now();
    const ranked = rankByHrw(key, serving);
    // Suspect runners keep their relative order but go last: still tried when nothing else is left.
    const healthy = ranked.filter((entry) => (this.suspectUntil.get(entry.id) ?? 0) <= now);
    const suspect = ranked.filter((entry) => (this.suspectUntil.get(entry.id) ?? 0) > now);
    this.dropStaleChannels(live);
    this.forgetGoneSuspects(live);
    return [...healthy, ...suspect].map((entry) => this.handle(entry));
  }

  languageOf(tenant: string, file: string): string {
    const extension = extensionOf(file);
    const claims = new Set<string>();
    const served = new Set<string>();
    let selfDeciding = false;
    let admitted = false;
    for (const entry of this.directory.live(this.now())) {
      if (entry.tenants && !entry.tenants.includes(tenant)) continue;
      admitted = true;
      if (!entry.extensions || entry.languages.includes(ANY_LANGUAGE)) {
        selfDeciding = true;
        continue;
      }
      for (const [language, extensions] of Object.entries(entry.extensions)) {
        for (const known of extensions) served.add(known);
        if (extension && extensions.includes(extension)) claims.add(language);
      }
    }
    // Two pools claiming one extension (say typescript and typescript-native): the first by id, so
    // every gateway replica routes the file the same way.
    const [language] = [...claims].sort();
    if (language) return language;
    if (selfDeciding) return "";
    // No live runner takes this tenant at all (its runners restarting, or late with their
    // heartbeat): a wait, not a missing language.
    if (!admitted) throw noRunnerLive();
    const what = extension ? `"${extension}" files` : `files without an extension like ${file}`;
    const known = [...served].sort().join(", ");
    throw new GatewayError(
      "NO_LANGUAGE_SERVER",
      `no language server here serves ${what}${known ? ` (served: ${known})` : ""}; an operator can add one in the runners' languages file`,
    );
  }

  languagesFor(tenant: string): string[] {
    const languages = new Set<string>();
    for (const entry of this.directory.live(this.now())) {
      if (entry.tenants && !entry.tenants.includes(tenant)) continue;
      for (const language of entry.languages) if (language !== ANY_LANGUAGE) languages.add(language);
    }
    return [...languages].sort();
  }

  reportUnavailable(id: string): void {
    this.suspectUntil.set(id, this.now() + (this.options.suspectMs ?? DEFAULT_SUSPECT_MS));
  }

  reportAnswered(id: string): void {
    this.suspectUntil.delete(id);
  }

  runners() {
    const now = this.now();
    return this.directory.known(now).map((entry) => ({
      id: entry.id,
      address: entry.address,
      live: entry.live,
      suspect: (this.suspectUntil.get(entry.id) ?? 0) > now,
      load: entry.load,
    }));
  }

  ready(): boolean {
    return !this.closed && this.directory.loaded && this.directory.live(this.now()).length > 0;
  }

  degraded(): string | undefined {
    return this.directory.degraded?.(this.now());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const channel of this.channels.values()) channel.client.close();
    this.channels.clear();
    await this.directory.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private handle(entry: RunnerEntry): RunnerHandle {
    let channel = this.channels.get(entry.id);
    if (channel && (channel.address !== entry.address || channel.workerAddress !== entry.workerAddress)) {
      // Same runner id, new address (a restarted pod): the old channel points nowhere, and what
      // the old process did says nothing of the new one.
      channel.client.close();
      channel = undefined;
      this.suspectUntil.delete(entry.id);
    }
    if (!channel) {
      channel = {
        address: entry.address,
        ...(entry.workerAddress ? { workerAddress: entry.workerAddress } : {}),
        client: this.connect(entry),
      };
      this.channels.set(entry.id, channel);
    }
    return { id: entry.id, address: entry.address, client: channel.client };
  }

  private connect(entry: RunnerEntry): RunnerClient {
    const own = this.options.connect?.(entry);
    if (own) return own;
    // grpc-js connects lazily, so creating a channel does not need the runner to be up yet.
    const auth = this.options.grpcAuth ?? GrpcAuth.none();
    // Read per call: a rotated secret file applies without new channels (on a stream of calls, a
    // changed secret opens a new stream).
    // A span per runner call, its trace context in the metadata (only while tracing is on).
    const tracing = tracingEnabled() ? [clientTracingInterceptor({ address: entry.address })] : [];
    const interceptors = [...tracing, callMetadataInterceptor(() => auth.callMetadata(entry.id))];
    const streams = this.options.transport !== "unary";
    const relayed = streams
      ? createMultiplexedClient(Runner, entry.address, auth.channelCredentials(), CHANNEL_OPTIONS, {
          calls: RunnerCalls,
          interceptors,
        })
      : createClient(Runner, entry.address, auth.channelCredentials(), CHANNEL_OPTIONS, { interceptors });
    const direct = entry.workerAddress && streams && this.options.workerConnections !== false && !auth.usesTls;
    const client = direct
      ? routedByTenant({
          workerAddress: entry.workerAddress!,
          relayed,
          authorization: () => auth.callMetadata(entry.id)?.[GRPC_AUTHORIZATION_KEY],
          channelOptions: CHANNEL_OPTIONS,
          interceptors: tracing,
        })
      : relayed;
    return this.options.decorate?.(entry.id, client) ?? client;
  }

  /**
   * A runner that left the live set (drained, deregistered, its heartbeat lapsed) loses its suspect
   * mark: when it registers again it is a new process (a replaced pod keeps its id), first in line
   * for its keys at once, not ranked last for the rest of the 15 s a call to its old self set.
   */
  private forgetGoneSuspects(live: readonly RunnerEntry[]): void {
    if (this.suspectUntil.size === 0) return;
    for (const id of this.suspectUntil.keys()) {
      if (!live.some((entry) => entry.id === id)) this.suspectUntil.delete(id);
    }
  }

  /** Closes channels of runners no longer live (their workspaces moved on). */
  private dropStaleChannels(live: readonly RunnerEntry[]): void {
    if (this.channels.size <= live.length) return;
    const ids = new Set(live.map((entry) => entry.id));
    for (const [id, channel] of this.channels) {
      if (!ids.has(id)) {
        channel.client.close();
        this.channels.delete(id);
      }
    }
  }
}

/** ".ts" for src/a.TS; "" when the file name has no extension (dotfiles included). */
export function extensionOf(file: string): string {
  const name = file.slice(file.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot).toLowerCase();
}

/** No live runner admits the tenant: retry (not NO_LANGUAGE_SERVER, which no retry fixes). */
function noRunnerLive(): GatewayError {
  return new GatewayError(
    "UNAVAILABLE",
    "no runner is available for this workspace right now; try again shortly, and check that the runners are up if it persists",
  );
}
