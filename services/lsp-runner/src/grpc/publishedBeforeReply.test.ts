import type { UnaryCall } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { publishedBeforeReplyInterceptor } from "./publishedBeforeReply.js";

function callOf(localName: string): UnaryCall {
  const method = Runner.methods.find((m) => m.localName === localName)!;
  return { method, request: {}, context: {} } as unknown as UnaryCall;
}

test("a call that changes files replies after the announcements were flushed, answered or failed; reads do not wait", async () => {
  const order: string[] = [];
  const interceptor = publishedBeforeReplyInterceptor({
    flushPublished: async () => {
      order.push("flush");
    },
  });
  const answer = interceptor(async () => {
    order.push("handler");
    return { ok: true };
  });
  await expect(answer(callOf("applyWorkspaceEdit"))).resolves.toEqual({ ok: true });
  expect(order).toEqual(["handler", "flush"]);
  const failing = interceptor(async () => {
    throw new Error("stale edit");
  });
  await expect(failing(callOf("renameSymbol"))).rejects.toThrow("stale edit");
  expect(order).toEqual(["handler", "flush", "flush"]);
  await answer(callOf("hover"));
  expect(order).toEqual(["handler", "flush", "flush", "handler"]);
});
