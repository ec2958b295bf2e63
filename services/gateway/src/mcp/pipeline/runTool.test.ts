import { GrpcStatus, Metadata } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, REQUEST_ID_METADATA } from "@lspmesh/proto";
import type { Logger } from "@lspmesh/service-kit";
import type { ServerContext } from "@modelcontextprotocol/server";
import { describe, expect, test, vi } from "vitest";
import { authInfoFor, type Principal } from "../../auth/principal.js";
import { GatewayError } from "../../errors.js";
import { TenantLimiter } from "../../limits/tenantLimiter.js";
import type { RunnerClient, RunnerHandle, RunnerRouter } from "../../routing/runnerRouter.js";
import { StaticWorkspaceResolver } from "../../workspaces.js";
import type { ToolDeps } from "../toolCall.js";
import { ERROR_META_KEY } from "../toolErrors.js";
import { runTool } from "./runTool.js";

const reader: Principal = { tenant: "local", subject: "test", scopes: ["lsp:read"] };
const writer: Principal = { ...reader, scopes: ["lsp:read", "lsp:write"] };

function handle(id: string): RunnerHandle {
  return { id, address: `${id}:1`, client: { id } as unknown as RunnerClient };
}

function setup(options: { signal?: AbortSignal; principal?: Principal; limiter?: TenantLimiter } = {}) {
  const runners = [handle("a"), handle("b"), handle("c")];
  const router = {
    candidates: vi.fn(() => runners),
    languageOf: vi.fn(() => "typescript"),
    languagesFor: vi.fn(() => ["typescript"]),
    reportUnavailable: vi.fn(),
    reportAnswered: vi.fn(),
    runners: vi.fn(() => []),
    ready: () => true,
    degraded: () => undefined,
    close: vi.fn(async () => {}),
  } satisfies RunnerRouter;
  const logger: Logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const deps: ToolDeps = {
    router,
    workspaces: new StaticWorkspaceResolver({ tenant: "local", workspace: "default" }),
    logger,
    callTimeoutMs: 30_000,
    limiter: options.limiter,
  };
  const ctx = {
    mcpReq: { signal: options.signal ?? new AbortController().signal, notify: vi.fn(async () => {}) },
    http: { authInfo: authInfoFor(options.principal ?? reader) },
  } as unknown as ServerContext;
  return { deps, ctx, router, logger };
}

const ok = { content: [{ type: "text" as const, text: "ok" }] };

function transportUnavailable() {
  return Object.assign(new Error("14 UNAVAILABLE: connect ECONNREFUSED"), {
    code: GrpcStatus.UNAVAILABLE,
    details: "No connection established",
    metadata: new Metadata(),
  });
}

describe("runTool", () => {
  test("resolves the workspace and sends to the HRW-first runner with deadline, request id and signal", async () => {
    const { deps, ctx, router } = setup();
    await runTool(deps, ctx, "hover", async (call) => {
      const target = await call.workspace(undefined);
      expect(target).toEqual({ tenant: "local", workspace: "default" });
      const seen = await call.send(
        target,
        "typescript",
        async (runner, options) => {
          expect(options.timeoutMs).toBe(35_000);
          expect(options.signal).toBe(ctx.mcpReq.signal);
          expect(options.metadata?.get(REQUEST_ID_METADATA)).toEqual([call.requestId]);
          // The request id is all that travels: never the caller's token.
          expect(Object.keys(options.metadata?.getMap() ?? {})).toEqual([REQUEST_ID_METADATA]);
          return (runner as unknown as { id: string }).id;
        },
        { extraMs: 5000 },
      );
      expect(seen).toBe("a");
      expect(call.requestId).toMatch(/^[0-9a-f-]{36}$/);
      return ok;
    });
    expect(router.candidates).toHaveBeenCalledWith({ tenant: "local", workspace: "default", language: "typescript" });
    expect(router.reportAnswered).toHaveBeenCalledWith("a");
  });

  test("a read is retried once on the next runner when the first is unreachable; a write never", async () => {
    const { deps, ctx, router } = setup({ principal: writer });
    const tried: string[] = [];
    const rpc = async (runner: RunnerClient) => {
      tried.push((runner as unknown as { id: string }).id);
      throw transportUnavailable();
    };
    const read = await runTool(deps, ctx, "hover", async (call) => {
      await call.send({ tenant: "local", workspace: "default" }, "typescript", rpc);
      return ok;
    });
    expect(tried).toEqual(["a", "b"]);
    expect(read.isError).toBe(true);
    expect(router.reportUnavailable).toHaveBeenCalledWith("a");
    tried.length = 0;
    await runTool(
      deps,
      ctx,
      "rename_symbol",
      async (call) => {
        await call.send({ tenant: "local", workspace: "default" }, "typescript", rpc, { write: true });
        return ok;
      },
      { write: true },
    );
    expect(tried).toEqual(["a"]);
  });

  test("an UNAVAILABLE the runner wrote itself (with a code trailer) is an answer, not retried", async () => {
    const { deps, ctx } = setup();
    const metadata = new Metadata();
    metadata.set(ERROR_CODE_TRAILER, "SERVER_STARTING");
    const tried: string[] = [];
    const result = await runTool(deps, ctx, "hover", async (call) => {
      await call.send({ tenant: "local", workspace: "default" }, "typescript", async (runner) => {
        tried.push((runner as unknown as { id: string }).id);
        throw Object.assign(new Error("14"), { code: GrpcStatus.UNAVAILABLE, details: "starting", metadata });
      });
      return ok;
    });
    expect(tried).toEqual(["a"]);
    expect(result.content).toEqual([{ type: "text", text: "SERVER_STARTING: starting" }]);
  });

  test("a GatewayError becomes an isError result with the code in text and _meta", async () => {
    const { deps, ctx, logger } = setup();
    const result = await runTool(deps, ctx, "hover", async (call) => {
      await call.workspace("elsewhere");
      return ok;
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([
      { type: "text", text: expect.stringMatching(/^NOT_FOUND: unknown workspace 'elsewhere'/) },
    ]);
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ code: "NOT_FOUND", requestId: expect.any(String) });
    expect(logger.info).toHaveBeenCalledWith(
      "tool call",
      expect.objectContaining({ outcome: "error", code: "NOT_FOUND" }),
    );
  });

  test("an unexpected exception is reported generically and logged, never passed on", async () => {
    const { deps, ctx, logger } = setup();
    const result = await runTool(deps, ctx, "hover", async () => {
      throw new TypeError("cannot read 'x' of undefined at /srv/gateway/dist/a.js");
    });
    const text = JSON.stringify(result.content);
    expect(text).toMatch(/UNAVAILABLE: internal error in the gateway/);
    expect(text).not.toContain("/srv");
    expect(logger.error).toHaveBeenCalled();
  });

  test("a call cancelled before reaching the runner is not sent", async () => {
    const aborted = new AbortController();
    aborted.abort();
    const { deps, ctx } = setup({ signal: aborted.signal });
    const send = vi.fn();
    const result = await runTool(deps, ctx, "hover", async (call) => {
      await call.send({ tenant: "local", workspace: "default" }, "typescript", async () => send());
      return ok;
    });
    expect(send).not.toHaveBeenCalled();
    expect(result.isError).toBe(true);
  });

  test("a write without lsp:write is FORBIDDEN before anything runs; with it, one audit line", async () => {
    const denied = setup();
    const body = vi.fn(async () => ok);
    const result = await runTool(denied.deps, denied.ctx, "rename_symbol", body, { write: true });
    expect(body).not.toHaveBeenCalled();
    expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(/^FORBIDDEN: .*lsp:write/) }]);
    expect(denied.logger.info).toHaveBeenCalledWith(
      "audit",
      expect.objectContaining({ outcome: "error", code: "FORBIDDEN" }),
    );

    const allowed = setup({ principal: writer });
    await runTool(
      allowed.deps,
      allowed.ctx,
      "rename_symbol",
      async (call) => {
        call.audit({ workspace: "default", files: "src/a.ts" });
        return ok;
      },
      { write: true },
    );
    expect(allowed.logger.info).toHaveBeenCalledWith(
      "audit",
      expect.objectContaining({
        tool: "rename_symbol",
        tenant: "local",
        subject: "test",
        outcome: "ok",
        files: "src/a.ts",
      }),
    );
  });

  test("over the tenant's limit the call is RATE_LIMITED with a retry-after", async () => {
    const { deps, ctx } = setup({ limiter: new TenantLimiter(() => ({ callsPerSecond: 1 })) });
    expect((await runTool(deps, ctx, "hover", async () => ok)).isError).toBeFalsy();
    const limited = await runTool(deps, ctx, "hover", async () => ok);
    expect(limited.content).toEqual([
      { type: "text", text: expect.stringMatching(/^RATE_LIMITED: .*retry after 1 s/) },
    ]);
    expect(limited._meta?.[ERROR_META_KEY]).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: expect.any(Number) });
  });

  test("workspace-wide calls go once to each runner owning one of the workspace's languages", async () => {
    const { deps, ctx, router } = setup();
    router.candidates.mockImplementation(((key: { language: string }) =>
      key.language === "python" ? [handle("b"), handle("a")] : [handle("a"), handle("b")]) as never);
    const calls: Array<[string, string[]]> = [];
    await runTool(deps, ctx, "workspace_symbols", async (call) => {
      const target = await call.workspace(undefined);
      const parts = await call.sendEach(
        target,
        ["typescript", "python", "javascript"],
        async (runner, _o, languages) => {
          const id = (runner as unknown as { id: string }).id;
          calls.push([id, languages]);
          if (id === "b") throw transportUnavailable();
          return id;
        },
      );
      expect(parts.map((part) => [part.languages, part.answer ?? part.error?.code])).toEqual([
        [["typescript", "javascript"], "a"],
        // b was unreachable: the read failed over to a, its next runner.
        [["python"], "a"],
      ]);
      return ok;
    });
    expect(calls).toEqual([
      ["a", ["typescript", "javascript"]],
      ["b", ["python"]],
      ["a", ["python"]],
    ]);
  });

  test("GatewayError messages are used verbatim", async () => {
    const { deps, ctx } = setup();
    const result = await runTool(deps, ctx, "hover", async () => {
      throw new GatewayError("INVALID_ARGUMENT", "give either column or symbol, not both");
    });
    expect(result.content).toEqual([
      { type: "text", text: "INVALID_ARGUMENT: give either column or symbol, not both" },
    ]);
  });
});
