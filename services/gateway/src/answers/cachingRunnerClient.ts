// A runner client whose read calls go through the gateway's answer cache: the questions whose
// answer depends only on what the workspace's servers know (positions, symbols, hierarchies), keyed
// by the runner, the method and the whole request (tenant and workspace included). Every other call passes.
import { clone, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { CallOptions } from "@lspmesh/grpc";
import { type AnswerStatus, Runner, ServerState } from "@lspmesh/proto";
import { GatewayError } from "../errors.js";
import type { RunnerClient } from "../routing/runnerRouter.js";
import type { GatewayAnswerCache } from "./gatewayAnswerCache.js";

/** The Runner methods (local names) whose answers are remembered. */
export const REMEMBERED_METHODS: ReadonlySet<string> = new Set([
  "findDefinition",
  "findTypeDefinition",
  "findImplementations",
  "findReferences",
  "hover",
  "documentSymbols",
  "signatureHelp",
  "documentHighlights",
  "callHierarchy",
  "typeHierarchy",
  "inlayHints",
  "workspaceSymbols",
]);

type Method = (request: unknown, options?: CallOptions) => Promise<unknown>;

export function cachingRunnerClient(client: RunnerClient, runnerId: string, cache: GatewayAnswerCache): RunnerClient {
  const wrapped: Record<string, unknown> = { ...client };
  for (const method of Runner.methods) {
    if (!REMEMBERED_METHODS.has(method.localName)) continue;
    const call = (client as unknown as Record<string, Method>)[method.localName]!.bind(client);
    wrapped[method.localName] = (request: RequestWithWorkspace, options: CallOptions = {}) => {
      const tenant = request.workspace?.tenant;
      const workspace = request.workspace?.workspace;
      if (!tenant || !workspace) return call(request, options);
      return cache.answer({
        // Per runner: when routing moves a workspace (a runner joins or comes back), its calls go
        // to the new owner rather than being answered from the one before.
        key: `${runnerId}\n${method.localName}\n${JSON.stringify(request, bigintAsText)}`,
        tenant,
        workspace,
        runner: runnerId,
        signal: options.signal,
        ask: (signal) => call(request, { ...options, signal }),
        keep: (answer) => complete((answer as { status?: AnswerStatus }).status),
        copy: (answer) => clone(method.output as DescMessage, answer as MessageShape<DescMessage>),
        cancelled: () => new GatewayError("UNAVAILABLE", "the request was cancelled; send it again"),
      });
    };
  }
  return wrapped as unknown as RunnerClient;
}

interface RequestWithWorkspace {
  workspace?: { tenant?: string; workspace?: string } | undefined;
}

/** An answer a ready server gave in full: nothing partial, no file passed over. */
function complete(status: AnswerStatus | undefined): boolean {
  return status !== undefined && status.state === ServerState.READY && !status.partial && status.skipped.length === 0;
}

function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
