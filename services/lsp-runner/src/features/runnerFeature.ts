// One LSP feature in one place: what the runner tells servers it can do for it, which of its
// requests only read (so their answers may be remembered), and the gRPC methods that serve it.
// The client capabilities, the answer cache's method list and the gRPC table are derived from the
// list in features/index.ts: a feature missing from one of them cannot be forgotten there.
import type { CallContext, ServiceImplementation } from "@lspmesh/grpc";
import type { Runner } from "@lspmesh/proto";
import type { ClientCapabilities, SymbolKind } from "vscode-languageserver-protocol";
import type { QueryEngine } from "../engine/queryEngine.js";
import { grpcErrorFromRunner } from "../grpc/errorStatus.js";
import { withDeadline } from "../lsp/session/requestDeadline.js";

/** The runner's gRPC methods (runner.proto), each a handler. */
export type RunnerMethods = ServiceImplementation<typeof Runner.method>;

export interface RunnerFeature {
  /** What users call it (logs, docs). */
  readonly name: string;
  /** Merged into the capabilities every server is initialized with. */
  readonly capabilities: ClientCapabilities;
  /** LSP requests that only read: the same question in the same content epoch has the same answer. */
  readonly cachedMethods: readonly string[];
  /** The gRPC methods this feature serves, given the engine that asks the servers. */
  readonly rpc: (engine: QueryEngine) => Partial<RunnerMethods>;
}

/**
 * Every symbol kind of LSP 3.17 (File 1 … TypeParameter 26), declared where symbols are asked for:
 * without it a server may use only File … Array (LSP 3.17), and clangd answers a struct as a class,
 * an enumerator as an enum.
 */
export const SYMBOL_KINDS = { valueSet: Array.from({ length: 26 }, (_, index) => (index + 1) as SymbolKind) };

/** A feature declaration, checked against RunnerFeature where it is written. */
export function defineFeature(feature: RunnerFeature): RunnerFeature {
  return feature;
}

/**
 * A gRPC handler with the caller's deadline on its signal (server requests time out early enough
 * to probe and restart a hung server and still answer before the caller gives up) and runner
 * errors translated to gRPC statuses (grpcErrorFromRunner, the one translation at this boundary).
 */
export function rpcHandler<Request, Answer>(
  handler: (request: Request, context: CallContext) => Promise<Answer>,
): (request: Request, context: CallContext) => Promise<Answer> {
  return (request, context) =>
    handler(request, { ...context, signal: withDeadline(context.signal, context.deadlineMs) }).catch(
      grpcErrorFromRunner,
    );
}
