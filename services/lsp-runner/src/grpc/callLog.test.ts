import { applyInterceptors, GrpcStatusError, Metadata, type UnaryCall } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, REQUEST_ID_METADATA, Runner } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { AgentActivity } from "../symbolIndex/agentActivity.js";
import { callLogInterceptor, requestIdOf, unexpectedErrorLog } from "./callLog.js";
import { agentActivityInterceptor } from "./trackedCalls.js";

function callWith(requestId?: string): UnaryCall {
  const metadata = new Metadata();
  if (requestId !== undefined) metadata.set(REQUEST_ID_METADATA, requestId);
  return {
    method: Runner.method.documentSymbols,
    request: {},
    context: { metadata, signal: new AbortController().signal, deadlineMs: Number.POSITIVE_INFINITY },
  };
}

describe("callLogInterceptor", () => {
  test("an answer is logged at debug with the method's name in code and the request id", async () => {
    const entries: Array<Record<string, unknown>> = [];
    const handle = applyInterceptors([callLogInterceptor((entry) => entries.push(entry))], async () => "answer");
    await expect(handle(callWith("req-1"))).resolves.toBe("answer");
    expect(entries).toEqual([
      { level: "debug", msg: "rpc", method: "documentSymbols", requestId: "req-1", durationMs: expect.any(Number) },
    ]);
  });

  test("a coded failure is logged at info with its code and passes through unchanged", async () => {
    const entries: Array<Record<string, unknown>> = [];
    const failure = new GrpcStatusError(5, "no such file", { [ERROR_CODE_TRAILER]: "NOT_FOUND" });
    const handle = applyInterceptors([callLogInterceptor((entry) => entries.push(entry))], async () => {
      throw failure;
    });
    await expect(handle(callWith("req-2"))).rejects.toBe(failure);
    expect(entries).toEqual([expect.objectContaining({ level: "info", requestId: "req-2", code: "NOT_FOUND" })]);
  });

  test("an unexpected failure is left to unexpectedErrorLog, which logs it with its stack", async () => {
    const entries: Array<Record<string, unknown>> = [];
    const failure = new Error("exploded");
    const handle = applyInterceptors([callLogInterceptor((entry) => entries.push(entry))], async () => {
      throw failure;
    });
    await expect(handle(callWith())).rejects.toBe(failure);
    expect(entries).toEqual([]);
    unexpectedErrorLog((entry) => entries.push(entry))("DocumentSymbols", failure, callWith("req-3").context);
    expect(entries).toEqual([
      {
        level: "error",
        msg: "unexpected error",
        method: "DocumentSymbols",
        requestId: "req-3",
        error: expect.stringContaining("exploded"),
      },
    ]);
  });
});

test("requestIdOf takes only a short printable token", () => {
  expect(requestIdOf(callWith("abc-1.2:3").context)).toBe("abc-1.2:3");
  expect(requestIdOf(callWith("has space").context)).toBeUndefined();
  expect(requestIdOf(callWith("x".repeat(129)).context)).toBeUndefined();
  expect(requestIdOf(callWith().context)).toBeUndefined();
});

test("agentActivityInterceptor marks the runner busy while a call runs, answered or failed", async () => {
  const activity = new AgentActivity();
  let finish: () => void = () => {};
  const answered = applyInterceptors(
    [agentActivityInterceptor(activity)],
    () =>
      new Promise<void>((resolve) => {
        finish = resolve;
      }),
  )(callWith());
  expect(activity.busy).toBe(true);
  finish();
  await answered;
  expect(activity.busy).toBe(false);
  const failed = applyInterceptors([agentActivityInterceptor(activity)], async () => {
    throw new Error("failed");
  })(callWith());
  await expect(failed).rejects.toThrow("failed");
  expect(activity.busy).toBe(false);
});
