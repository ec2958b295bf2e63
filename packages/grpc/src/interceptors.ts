// Interceptors: code that runs around every call of a service, written once instead of wrapped
// around each method. The shape is connect-es's (`(next) => async (call) => …`): the same type
// serves a grpc-js server (addService), a network client (createClient) and an in-process client
// (createInProcessClient).
import type { DescMethod } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";

/** What a handler may know about its call: metadata in, cancellation, and trailers out. */
export interface CallContext {
  /** Server: the metadata received. Client: the metadata to send (a copy per call, so it may be changed). */
  readonly metadata: grpc.Metadata;
  /** Aborted when the client cancels or the deadline passes. */
  readonly signal: AbortSignal;
  /** Remaining time before the client's deadline in ms, or Infinity without a deadline. */
  readonly deadlineMs: number;
  /**
   * Server, calls on a stream of calls: the bytes `request` was decoded from, for a handler that
   * relays the request unchanged to another process (an interceptor that rewrote the request would
   * have to leave this out).
   */
  readonly requestBytes?: Uint8Array;
}

/** One unary call as an interceptor sees it. */
export interface UnaryCall {
  /** The RPC: `method.name` as on the wire (FindDefinition), `method.localName` as in code (findDefinition). */
  readonly method: DescMethod;
  /** The request message. */
  readonly request: unknown;
  readonly context: CallContext;
}

/**
 * The rest of the chain: the next interceptor, and after the last one the handler (server,
 * in-process client) or the network call (client). Resolves to the answer; rejects with the failure.
 */
export type UnaryNext = (call: UnaryCall) => Promise<unknown>;

/**
 * Runs around a call: it may read or replace the call before `next`, answer or fail without calling
 * `next` at all, and see the answer or the failure `next` ends with.
 */
export type Interceptor = (next: UnaryNext) => UnaryNext;

/**
 * `last` wrapped in the interceptors; the first one is the outermost (it sees the call first and its
 * outcome last), as in connect-es.
 */
export function applyInterceptors(interceptors: readonly Interceptor[], last: UnaryNext): UnaryNext {
  return interceptors.reduceRight<UnaryNext>((next, interceptor) => interceptor(next), last);
}

/** Client side: adds these entries to every call's metadata, read at each call (so a rotated secret applies). */
export function callMetadataInterceptor(entries: () => Record<string, string> | undefined): Interceptor {
  return (next) => (call) => {
    for (const [key, value] of Object.entries(entries() ?? {})) call.context.metadata.set(key, value);
    return next(call);
  };
}

/**
 * Calls under way, counted by its interceptor from their start to their end, so that whoever closes
 * a service can let them finish (what grpc-js tryShutdown does for its own network calls).
 */
export class InFlightCalls {
  private readonly running = new Set<Promise<unknown>>();

  readonly interceptor: Interceptor = (next) => (call) => {
    const outcome = next(call);
    this.running.add(outcome);
    const forget = () => this.running.delete(outcome);
    outcome.then(forget, forget);
    return outcome;
  };

  /** How many calls are under way. */
  get size(): number {
    return this.running.size;
  }

  /** Settles once the calls under way now have ended, or after `graceMs` ms, whichever comes first. */
  async settled(graceMs: number): Promise<void> {
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
