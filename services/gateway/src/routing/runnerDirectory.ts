// Which runners exist and which are alive. Two sources: a static list (single machine, simple
// deployments) and the NATS KV registry `lspmesh-runners` that runners heartbeat into.
import { isLive, RUNNER_REGISTRY_BUCKET, type RunnerRegistryEntry } from "@lspmesh/events";
import { ID_PATTERN } from "@lspmesh/proto";

/** Language wildcard of a static runner: it is asked about every language. */
export const ANY_LANGUAGE = "*";

/** What routing needs to know about one runner. */
export interface RunnerEntry {
  readonly id: string;
  /** host:port of its gRPC server. */
  readonly address: string;
  /** Language ids it serves; ["*"] = any. */
  readonly languages: readonly string[];
  /**
   * File extensions (with the dot, lower case) of each language it serves, as its languages file
   * defines them; undefined when it did not say (a static runner): it decides for itself.
   */
  readonly extensions?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Tenants it admits; undefined = any (shared pool). */
  readonly tenants?: readonly string[] | undefined;
  readonly load: number;
}

export interface RunnerDirectory {
  /** The live runners now. */
  live(now?: number): RunnerEntry[];
  /** Every runner known, live or not (for metrics and /readyz). */
  known(now?: number): Array<RunnerEntry & { live: boolean }>;
  /** True once the directory has loaded its source (the registry's initial values). */
  readonly loaded: boolean;
  /** Why the directory is routing on old knowledge (its source unreachable), or undefined. */
  degraded?(now?: number): string | undefined;
  /** Stops watching. Idempotent. */
  close(): Promise<void>;
}

/** A fixed list of runner addresses; every one is always considered live and serves any language. */
export class StaticRunnerDirectory implements RunnerDirectory {
  readonly loaded = true;
  private readonly entries: RunnerEntry[];

  constructor(addresses: readonly string[]) {
    if (addresses.length === 0) throw new Error("a static runner list needs at least one host:port");
    this.entries = addresses.map((address) => ({ id: address, address, languages: [ANY_LANGUAGE], load: 0 }));
  }

  live(): RunnerEntry[] {
    return this.entries;
  }

  known(): Array<RunnerEntry & { live: boolean }> {
    return this.entries.map((entry) => ({ ...entry, live: true }));
  }

  async close(): Promise<void> {}
}

/** Parses a registry value; undefined (and the reason) for anything that is not a v1 entry. */
export function registryEntryFrom(key: string, value: unknown): { entry?: RunnerRegistryEntry; problem?: string } {
  const entry = value as Partial<RunnerRegistryEntry> | null;
  if (!entry || typeof entry !== "object") return { problem: "not a JSON object" };
  if (entry.v !== 1) return { problem: `unsupported version ${String(entry.v)}` };
  if (typeof entry.address !== "string" || !/^[^\s:]+:\d{1,5}$|^\[[0-9a-f:.]+\]:\d{1,5}$/i.test(entry.address))
    return { problem: "address is not host:port" };
  if (!Array.isArray(entry.languages) || !entry.languages.every((l) => typeof l === "string"))
    return { problem: "languages is not a list of strings" };
  if (typeof entry.updatedAt !== "number" || typeof entry.heartbeatMs !== "number" || entry.heartbeatMs <= 0)
    return { problem: "updatedAt/heartbeatMs missing" };
  if (
    entry.extensions !== undefined &&
    (typeof entry.extensions !== "object" ||
      entry.extensions === null ||
      !Object.values(entry.extensions).every((list) => Array.isArray(list) && list.every((e) => typeof e === "string")))
  )
    return { problem: "extensions is not a map of language to a list of extensions" };
  if (entry.tenants !== undefined && (!Array.isArray(entry.tenants) || !entry.tenants.every((t) => ID_PATTERN.test(t))))
    return { problem: "tenants is not a list of tenant ids" };
  return {
    entry: { ...(entry as RunnerRegistryEntry), id: typeof entry.id === "string" && entry.id ? entry.id : key },
  };
}

export function entryFromRegistry(entry: RunnerRegistryEntry): RunnerEntry {
  return {
    id: entry.id,
    address: entry.address,
    languages: entry.languages,
    extensions: entry.extensions,
    tenants: entry.tenants,
    load: typeof entry.load === "number" ? entry.load : 0,
  };
}

/** Pause before a registry watch that ended is opened again, in ms. */
const REWATCH_DELAY_MS = 1000;

/** How long an empty registry bucket is waited on before the directory counts as loaded, in ms. */
const EMPTY_BUCKET_SETTLE_MS = 500;

/** The subset of the KV watch API the registry directory uses (a real @nats-io/kv KV in production). */
export interface RegistryWatchSource {
  watch(): Promise<
    AsyncIterable<{ key: string; operation: string; value: Uint8Array; delta?: number }> & { stop(): void }
  >;
}

/**
 * Runners from the KV bucket `lspmesh-runners`, kept current by a watch. Liveness is judged by
 * `updatedAt` (younger than 3 heartbeats, isLive), never by KV expiry events, which older NATS
 * servers do not send; so a runner killed without deregistering drops out by itself.
 */
export class RegistryRunnerDirectory implements RunnerDirectory {
  private readonly entries = new Map<string, RunnerRegistryEntry>();
  private stopWatch: (() => void) | undefined;
  private closed = false;
  private initial: Promise<void> | undefined;
  loaded = false;

  constructor(
    private readonly source: RegistryWatchSource,
    private readonly onProblem: (message: string, key: string) => void = () => {},
  ) {}

  /** Starts the watch; resolves once the bucket's current values are loaded. */
  start(): Promise<void> {
    this.initial ??= this.run();
    return this.initial;
  }

  private async run(): Promise<void> {
    let markLoaded: () => void = () => {};
    const loaded = new Promise<void>((resolve) => {
      markLoaded = resolve;
    });
    const done = () => {
      this.loaded = true;
      markLoaded();
    };
    // The first watch must start (a bad URL or bucket fails open); later ones are retried.
    const first = await this.source.watch();
    // The current values arrive first, the last with delta 0; an empty bucket sends nothing at all.
    const settle = setTimeout(done, EMPTY_BUCKET_SETTLE_MS);
    void this.follow(first, done);
    await loaded;
    clearTimeout(settle);
  }

  /**
   * Applies changes until the directory closes. A watch that ends (connection trouble) is opened
   * again after a pause; it replays the current values, and entries missed meanwhile go stale by
   * their updatedAt as usual.
   */
  private async follow(watch: Awaited<ReturnType<RegistryWatchSource["watch"]>>, done: () => void): Promise<void> {
    const decoder = new TextDecoder();
    for (;;) {
      this.stopWatch = () => watch.stop();
      if (this.closed) watch.stop();
      try {
        for await (const change of watch) {
          if (!this.loaded && (change.delta ?? 0) === 0) queueMicrotask(done);
          if (change.operation === "DEL" || change.operation === "PURGE") {
            this.entries.delete(change.key);
            continue;
          }
          let parsed: ReturnType<typeof registryEntryFrom>;
          try {
            parsed = registryEntryFrom(change.key, JSON.parse(decoder.decode(change.value)));
          } catch {
            parsed = { problem: "not JSON" };
          }
          if (parsed.entry) this.entries.set(change.key, parsed.entry);
          else {
            this.entries.delete(change.key);
            this.onProblem(`ignored registry entry: ${parsed.problem}`, change.key);
          }
        }
      } catch (error) {
        this.onProblem(`registry watch failed: ${String(error)}`, RUNNER_REGISTRY_BUCKET);
      }
      if (this.closed) return;
      this.onProblem("registry watch ended; watching again", RUNNER_REGISTRY_BUCKET);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, REWATCH_DELAY_MS).unref());
        if (this.closed) return;
        try {
          watch = await this.source.watch();
          break;
        } catch (error) {
          this.onProblem(`registry watch could not restart: ${String(error)}`, RUNNER_REGISTRY_BUCKET);
        }
      }
    }
  }

  live(now = Date.now()): RunnerEntry[] {
    return [...this.entries.values()].filter((entry) => isLive(entry, now)).map(entryFromRegistry);
  }

  known(now = Date.now()): Array<RunnerEntry & { live: boolean }> {
    return [...this.entries.values()].map((entry) => ({ ...entryFromRegistry(entry), live: isLive(entry, now) }));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopWatch?.();
  }
}
