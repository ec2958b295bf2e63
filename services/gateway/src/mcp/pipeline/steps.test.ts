import type { Logger } from "@lspmesh/service-kit";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { describe, expect, test, vi } from "vitest";
import type { Principal } from "../../auth/principal.js";
import { GatewayError } from "../../errors.js";
import { TenantLimiter } from "../../limits/tenantLimiter.js";
import type { ToolDeps } from "../toolCall.js";
import { ERROR_META_KEY } from "../toolErrors.js";
import { type CallState, composeSteps } from "./callState.js";
import { admitTenant, errorResult, recordOutcome, requireCaller, requireWriteScope, TOOL_CALL_STEPS } from "./steps.js";

const ok: CallToolResult = { content: [{ type: "text", text: "done" }] };
const reader: Principal = { tenant: "acme", subject: "agent", scopes: ["lsp:read"] };
const writer: Principal = { ...reader, scopes: ["lsp:read", "lsp:write"] };

function logger(): Logger & { lines: Array<[string, Record<string, unknown> | undefined]> } {
  const lines: Array<[string, Record<string, unknown> | undefined]> = [];
  const log = (message: string, fields?: Record<string, unknown>) => void lines.push([message, fields]);
  return { lines, debug: log, info: log, warn: log, error: log } as Logger & { lines: typeof lines };
}

function state(overrides: Partial<CallState> = {}, deps: Partial<ToolDeps> = {}): CallState {
  return {
    deps: { logger: logger(), callTimeoutMs: 1000, ...deps } as ToolDeps,
    tool: "rename_symbol",
    requestId: "req-1",
    write: false,
    principal: reader,
    auditFields: {},
    ...overrides,
  };
}

const codeOf = (result: CallToolResult) => (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;

describe("the write-scope step", () => {
  test("a write needs lsp:write; a read-only token gets FORBIDDEN naming the fix, and the body never runs", async () => {
    const body = vi.fn(async () => ok);
    const refused = composeSteps([errorResult, requireWriteScope], state({ write: true }), body);
    expect((await refused).content).toEqual([
      {
        type: "text",
        text: "FORBIDDEN: this call writes files and the token lacks the lsp:write scope; use a token with lsp:write, or preview with apply: false",
      },
    ]);
    expect(body).not.toHaveBeenCalled();
    expect(await composeSteps([requireWriteScope], state({ write: true, principal: writer }), body)).toBe(ok);
    expect(await composeSteps([requireWriteScope], state({ write: false }), body)).toBe(ok);
  });

  test("a call without a verified caller is refused before anything else", async () => {
    const result = await composeSteps(TOOL_CALL_STEPS, state({ principal: undefined }), async () => ok);
    expect(codeOf(result)).toBe("FORBIDDEN");
    expect(await composeSteps([errorResult, requireCaller], state(), async () => ok)).toBe(ok);
  });
});

describe("the tenant-limit step", () => {
  test("over the concurrency limit: RATE_LIMITED with retryAfterMs, and the slot is released after each call", async () => {
    const limiter = new TenantLimiter(() => ({ concurrentCalls: 1, callsPerSecond: 1000 }));
    const deps = { limiter };
    let finish: () => void = () => {};
    const first = composeSteps(
      [admitTenant],
      state({}, deps),
      () => new Promise((resolve) => (finish = () => resolve(ok))),
    );
    const second = await composeSteps([admitTenant], state({}, deps), async () => ok);
    expect(codeOf(second)).toBe("RATE_LIMITED");
    expect(second.content).toEqual([
      expect.objectContaining({ text: expect.stringContaining("too many calls: the limit is 1 call at once;") }),
    ]);
    expect(second._meta?.[ERROR_META_KEY]).toMatchObject({ retryAfterMs: expect.any(Number) });
    finish();
    expect(await first).toBe(ok);
    expect(await composeSteps([admitTenant], state({}, deps), async () => ok)).toBe(ok);
    // A body that throws releases its slot too.
    await expect(
      composeSteps([admitTenant], state({}, deps), async () => {
        throw new GatewayError("TIMEOUT", "slow");
      }),
    ).rejects.toThrow("slow");
    expect(await composeSteps([admitTenant], state({}, deps), async () => ok)).toBe(ok);
  });

  test("a call its caller abandoned gives its slot back at once, though its work never ends", async () => {
    const limiter = new TenantLimiter(() => ({ concurrentCalls: 1, callsPerSecond: 1000 }));
    const deps = { limiter };
    const abandoned = new AbortController();
    void composeSteps([admitTenant], state({ signal: abandoned.signal }, deps), () => new Promise(() => {}));
    expect(codeOf(await composeSteps([admitTenant], state({}, deps), async () => ok))).toBe("RATE_LIMITED");
    abandoned.abort();
    expect(await composeSteps([admitTenant], state({}, deps), async () => ok)).toBe(ok);
  });
});

describe("the outcome and error steps", () => {
  test("a bug becomes UNAVAILABLE with the request id, never its message; the call is logged with its code", async () => {
    const log = logger();
    const result = await composeSteps(TOOL_CALL_STEPS, state({}, { logger: log }), async () => {
      throw new Error("secret internal detail");
    });
    expect(result.content).toEqual([
      { type: "text", text: "UNAVAILABLE: internal error in the gateway; try again, and report request id req-1" },
    ]);
    expect(log.lines.find(([message]) => message === "tool call")?.[1]).toMatchObject({
      requestId: "req-1",
      outcome: "error",
      code: "UNAVAILABLE",
    });
  });

  test("every write gets one audit line with its details, to the audit logger, whatever the outcome", async () => {
    const log = logger();
    const audit = logger();
    const writeState = state({ write: true, principal: writer }, { logger: log, auditLogger: audit });
    await composeSteps([recordOutcome, errorResult], writeState, async () => {
      writeState.auditFields.workspace = "web";
      throw new GatewayError("STALE_EDIT", "changed");
    });
    expect(audit.lines).toEqual([
      [
        "audit",
        {
          requestId: "req-1",
          tool: "rename_symbol",
          tenant: "acme",
          subject: "agent",
          outcome: "error",
          code: "STALE_EDIT",
          workspace: "web",
        },
      ],
    ]);
    expect(log.lines.map(([message]) => message)).toEqual(["tool call"]);
  });
});
