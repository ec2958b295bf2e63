import { GrpcStatus, Metadata } from "@lspmesh/proto";
import type { ServerContext } from "@modelcontextprotocol/server";
import { describe, expect, test, vi } from "vitest";
import { GatewayError } from "../errors.js";
import { ERROR_CODE_TRAILER } from "../grpcErrors.js";
import type { Logger } from "../logger.js";
import type { RunnerClient, RunnerRouter } from "../runnerRouting.js";
import { StaticWorkspaceResolver } from "../workspaces.js";
import { ERROR_META_KEY, REQUEST_ID_METADATA, runTool, type ToolDeps } from "./toolCall.js";

const runner = {} as RunnerClient;

function setup(signal = new AbortController().signal) {
  const router: RunnerRouter = { clientFor: vi.fn(() => runner), close: vi.fn() };
  const logger: Logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const deps: ToolDeps = {
    router,
    workspaces: new StaticWorkspaceResolver({ tenant: "local", workspace: "default" }),
    logger,
    callTimeoutMs: 30_000,
  };
  const ctx = { mcpReq: { signal } } as unknown as ServerContext;
  return { deps, ctx, router, logger };
}

const ok = { content: [{ type: "text" as const, text: "ok" }] };

describe("runTool", () => {
  test("resolves the workspace, picks its runner and builds call options", async () => {
    const { deps, ctx, router } = setup();
    await runTool(deps, ctx, "hover", async (call) => {
      const target = await call.target(undefined);
      expect(target).toEqual({ workspace: { tenant: "local", workspace: "default" }, runner });
      const options = call.runnerOptions(5000);
      expect(options.timeoutMs).toBe(35_000);
      expect(options.signal).toBe(ctx.mcpReq.signal);
      expect(options.metadata?.get(REQUEST_ID_METADATA)).toEqual([call.requestId]);
      expect(call.requestId).toMatch(/^[0-9a-f-]{36}$/);
      return ok;
    });
    expect(router.clientFor).toHaveBeenCalledWith("local", "default");
  });

  test("each call gets its own request id", async () => {
    const { deps, ctx } = setup();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      await runTool(deps, ctx, "hover", async (call) => {
        ids.push(call.requestId);
        return ok;
      });
    }
    expect(new Set(ids).size).toBe(2);
  });

  test("a GatewayError becomes an isError result with the code in text and _meta", async () => {
    const { deps, ctx, logger } = setup();
    const result = await runTool(deps, ctx, "hover", async (call) => {
      await call.target("elsewhere");
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

  test("a runner failure is translated by its trailer", async () => {
    const { deps, ctx } = setup();
    const metadata = new Metadata();
    metadata.set(ERROR_CODE_TRAILER, "SYMBOL_NOT_FOUND");
    const failure = Object.assign(new Error("5 NOT_FOUND"), {
      code: GrpcStatus.NOT_FOUND,
      details: "no `parse` near line 3 of src/a.ts; check the name or give line and column",
      metadata,
    });
    const result = await runTool(deps, ctx, "hover", async () => {
      throw failure;
    });
    expect(result.content).toEqual([
      {
        type: "text",
        text: "SYMBOL_NOT_FOUND: no `parse` near line 3 of src/a.ts; check the name or give line and column",
      },
    ]);
  });

  test("an unexpected exception is reported generically and logged, never passed on", async () => {
    const { deps, ctx, logger } = setup();
    const result = await runTool(deps, ctx, "hover", async () => {
      throw new TypeError("cannot read 'x' of undefined at /srv/gateway/dist/a.js");
    });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toMatch(/UNAVAILABLE: internal error in the gateway/);
    expect(text).not.toContain("/srv");
    expect(logger.error).toHaveBeenCalled();
  });

  test("a call cancelled before reaching the runner is not sent", async () => {
    const aborted = new AbortController();
    aborted.abort();
    const { deps, ctx } = setup(aborted.signal);
    const send = vi.fn();
    const result = await runTool(deps, ctx, "hover", async (call) => {
      send(call.runnerOptions());
      return ok;
    });
    expect(send).not.toHaveBeenCalled();
    expect(result.isError).toBe(true);
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
