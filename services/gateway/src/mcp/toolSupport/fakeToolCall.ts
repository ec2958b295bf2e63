// For unit tests of tool bodies: a ToolCall whose runner is a table of answers (no process, no
// gRPC), and a tenant's symbol index made from a list of declarations.
import type { IndexedSymbol, SymbolIndexMeta } from "@lspmesh/events";
import { GatewayError } from "../../errors.js";
import type { RunnerClient } from "../../routing/runnerRouter.js";
import { TenantIndex } from "../../symbols/tenantIndex.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import type { ToolCall } from "../toolCall.js";

type RunnerMethod = keyof RunnerClient;

export interface FakeCallOptions {
  /** The caller's workspaces (default ["default"]); the first is the one an omitted workspace means. */
  workspaces?: string[];
  index?: TenantIndex;
  /** The runner's answers by method (a request → its answer); a method left out is UNSUPPORTED. */
  runner?: Partial<Record<RunnerMethod, (request: never) => unknown>>;
  /** Files no language server reads (sendForFile throws NO_LANGUAGE_SERVER, as routing does). */
  unserved?: RegExp;
}

export interface FakeToolCall extends ToolCall {
  /** The runner calls made, in order. */
  readonly asked: Array<{ method: RunnerMethod; request: unknown }>;
}

export function fakeToolCall(options: FakeCallOptions = {}): FakeToolCall {
  const names = options.workspaces ?? ["default"];
  const targets: WorkspaceTarget[] = names.map((workspace) => ({ tenant: "acme", workspace }));
  const asked: FakeToolCall["asked"] = [];
  const runner = new Proxy({} as RunnerClient, {
    get: (_target, method: RunnerMethod) => async (request: never) => {
      asked.push({ method, request });
      const answer = options.runner?.[method];
      if (!answer) throw new GatewayError("UNSUPPORTED", `${String(method)} is not implemented`);
      return answer(request);
    },
  });
  const rpc = <T>(call: (client: RunnerClient, callOptions: object) => Promise<T>) => call(runner, {});
  return {
    asked,
    requestId: "test",
    caller: {},
    signal: new AbortController().signal,
    callTimeoutMs: 1000,
    async workspace(requested) {
      const target = requested === undefined ? targets[0] : targets.find((one) => one.workspace === requested);
      if (!target) throw new GatewayError("NOT_FOUND", `unknown workspace '${requested}'`);
      return target;
    },
    visibleWorkspaces: async () => targets,
    symbolIndex: async () => options.index,
    async sendForFile(_target, file, call) {
      if (options.unserved?.test(file)) {
        throw new GatewayError("NO_LANGUAGE_SERVER", `no language server here serves files like ${file}`);
      }
      return rpc(call);
    },
    sendForEdit: (_target, _files, call) => rpc(call),
    sendForText: (_target, _files, call) => rpc(call),
    async sendForFiles(_target, files, call) {
      return [{ languages: ["typescript"], answer: await call(runner, {}, [...files]) }];
    },
    async sendToWorkspace(_target, call, options) {
      const languages = [...(options?.languages ?? ["typescript"])];
      return [{ languages, answer: await call(runner, {}, languages) }];
    },
    send: (_target, _language, call) => rpc(call),
    async sendEach(_target, languages, call) {
      return [{ languages: [...languages], answer: await call(runner, {}, [...languages]) }];
    },
    progress: () => {},
    audit: () => {},
  };
}

/** A declaration as the index stores it: the name at line:column of a one-line snippet. */
export function indexed(name: string, kind: string, line: number, extra: Partial<IndexedSymbol> = {}): IndexedSymbol {
  const column = extra.column ?? 3;
  return {
    name,
    kind,
    line,
    column,
    endLine: line,
    endColumn: column + name.length,
    exported: false,
    snippet: `${kind} ${name}`,
    ...extra,
  };
}

/** Tenant acme's index: workspace → file → declarations, each workspace in `state`. */
export function tenantIndex(
  workspaces: Record<string, Record<string, IndexedSymbol[]>>,
  state: SymbolIndexMeta["state"] = "ready",
): TenantIndex {
  const index = new TenantIndex("acme");
  for (const [workspace, files] of Object.entries(workspaces)) {
    index.apply({
      type: "meta",
      meta: {
        v: 1,
        tenant: "acme",
        workspace,
        runner: "runner-1",
        state,
        epoch: 1,
        total: 10,
        done: state === "ready" ? 10 : 4,
        files: Object.keys(files).length,
        symbols: 0,
        skipped: { tooLarge: 0, binary: 0, failed: 0, overCap: 0 },
        sources: { "typescript-syntax": 1 },
        updatedAt: 1,
      },
    });
    for (const [file, symbols] of Object.entries(files)) {
      // Lua and Go files stand for files indexed as text (no symbol source, or their server not running).
      const text = /\.(lua|go)$/.exec(file)?.[1];
      // C files stand for a language indexed from its server's document symbols.
      const cpp = /\.(c|h)$/.test(file);
      index.apply({
        type: "file",
        workspace,
        entry: {
          v: 1,
          file,
          language: text ?? (cpp ? "cpp" : "typescript"),
          source: text ? "text" : cpp ? "lsp-document-symbol" : "typescript-syntax",
          epoch: 1,
          mtimeMs: 1,
          size: 1,
          symbols,
        },
      });
    }
  }
  return index;
}
