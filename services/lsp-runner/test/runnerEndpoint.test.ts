// The runner's endpoint around a stand-in implementation (no language server): every call, over
// gRPC or in this process, passes the same interceptors (call log with request ids, calls under
// way counted), credentials are checked before any of them, and close() lets calls under way finish.
import {
  createClient,
  GrpcAuth,
  GrpcStatus,
  Metadata,
  type ServiceError,
  type ServiceImplementation,
} from "@lspmesh/grpc";
import { REQUEST_ID_METADATA, Runner } from "@lspmesh/proto";
import { afterEach, expect, test } from "vitest";
import { InProcessEventBus } from "../src/events/inProcessEventBus.js";
import { type RunnerEndpoint, startRunnerEndpoint } from "../src/runnerEndpoint.js";

type Implementation = ServiceImplementation<typeof Runner.method>;

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function endpointWith(
  implementation: Partial<Implementation>,
  grpcAuth?: GrpcAuth,
): Promise<{ endpoint: RunnerEndpoint; logs: Array<Record<string, unknown>> }> {
  const logs: Array<Record<string, unknown>> = [];
  const bus = new InProcessEventBus();
  const endpoint = await startRunnerEndpoint({
    id: "endpoint-test",
    listen: "127.0.0.1:0",
    grpcAuth,
    implementation: implementation as Implementation,
    bus,
    served: [],
    load: () => 0,
    log: (entry) => logs.push(entry),
  });
  closers.push(() => bus.close());
  closers.push(() => endpoint.close(1_000));
  return { endpoint, logs };
}

function withRequestId(id: string) {
  const metadata = new Metadata();
  metadata.set(REQUEST_ID_METADATA, id);
  return { metadata };
}

const describing: Partial<Implementation> = {
  describe: async () => ({ runnerId: "endpoint-test", languages: [] }),
};

test("network and in-process calls are logged alike, with their request ids", async () => {
  const { endpoint, logs } = await endpointWith(describing);
  const client = createClient(Runner, endpoint.address);
  closers.push(() => client.close());
  await client.describe({}, withRequestId("over-grpc"));
  await endpoint.inProcessClient.describe({}, withRequestId("in-process"));
  const rpcs = logs.filter((entry) => entry.msg === "rpc");
  expect(rpcs).toEqual([
    expect.objectContaining({ level: "debug", method: "describe", requestId: "over-grpc" }),
    expect.objectContaining({ level: "debug", method: "describe", requestId: "in-process" }),
  ]);
});

test("an unexpected failure is logged with the request id and answered INTERNAL", async () => {
  const { endpoint, logs } = await endpointWith({
    hover: async () => {
      throw new Error("exploded");
    },
  });
  const error = (await endpoint.inProcessClient.hover({}, withRequestId("req-9")).catch((e) => e)) as ServiceError;
  expect(error.code).toBe(GrpcStatus.INTERNAL);
  expect(logs).toContainEqual(
    expect.objectContaining({ level: "error", msg: "unexpected error", method: "Hover", requestId: "req-9" }),
  );
});

test("a call without the secret is UNAUTHENTICATED and never reaches the interceptors", async () => {
  const { endpoint, logs } = await endpointWith(describing, GrpcAuth.from({ secret: "s3cret-s3cret-s3cret-s3cret" }));
  const anonymous = createClient(Runner, endpoint.address);
  closers.push(() => anonymous.close());
  const error = (await anonymous.describe({}, withRequestId("anonymous")).catch((e) => e)) as ServiceError;
  expect(error.code).toBe(GrpcStatus.UNAUTHENTICATED);
  expect(logs.filter((entry) => entry.msg === "rpc")).toEqual([]);
  // In the same process there is no credential to check.
  await expect(endpoint.inProcessClient.describe({})).resolves.toMatchObject({ runnerId: "endpoint-test" });
});

test("close() lets an in-process call under way finish, then refuses new ones", async () => {
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let finish: () => void = () => {};
  const { endpoint } = await endpointWith({
    describe: () => {
      started();
      return new Promise((resolve) => {
        finish = () => resolve({ runnerId: "endpoint-test", languages: [] });
      });
    },
  });
  const underWay = endpoint.inProcessClient.describe({});
  await running;
  let closed = false;
  const closing = endpoint.close(10_000).then(() => {
    closed = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(closed).toBe(false);
  finish();
  await expect(underWay).resolves.toMatchObject({ runnerId: "endpoint-test" });
  await closing;
  const refused = (await endpoint.inProcessClient.describe({}).catch((e) => e)) as ServiceError;
  expect(refused.code).toBe(GrpcStatus.UNAVAILABLE);
});
