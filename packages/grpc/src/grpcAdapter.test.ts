import { getEventListeners } from "node:events";
import * as grpc from "@grpc/grpc-js";
import { Runner } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { createClient } from "./grpcAdapter.js";

// Nothing listens on port 1: calls fail UNAVAILABLE at once, without a server.
const NOWHERE = "127.0.0.1:1";

test("a client's call leaves no listener on the caller's signal once it has ended", async () => {
  const client = createClient(Runner, NOWHERE);
  const signal = new AbortController().signal;
  for (let call = 0; call < 3; call++) {
    const error = (await client.hover({}, { signal }).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.UNAVAILABLE);
  }
  expect(getEventListeners(signal, "abort")).toHaveLength(0);
  client.close();
});

test("a call whose signal has already aborted fails CANCELLED", async () => {
  const client = createClient(Runner, NOWHERE);
  const cancel = new AbortController();
  cancel.abort();
  const error = (await client
    .hover({}, { signal: cancel.signal })
    .catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
  expect(error.code).toBe(grpc.status.CANCELLED);
  client.close();
});
