import * as grpc from "@grpc/grpc-js";
import { Runner, ServerState } from "@lspmesh/proto";
import { afterEach, describe, expect, test } from "vitest";
import {
  addService,
  createClient,
  GrpcStatusError,
  type ServiceClient,
  type ServiceImplementation,
} from "../src/grpcAdapter.js";
import { createInProcessClient } from "../src/inProcessClient.js";

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

type Implementation = Partial<ServiceImplementation<typeof Runner.method>>;

async function serveOverNetwork(implementation: Implementation) {
  const server = new grpc.Server();
  addService(server, Runner, implementation as ServiceImplementation<typeof Runner.method>);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  closers.push(() => server.forceShutdown());
  const client: ServiceClient<typeof Runner.method> = createClient(Runner, `127.0.0.1:${port}`);
  closers.push(() => client.close());
  return client;
}

/** The same implementation in the same process: the client must behave exactly as the network one. */
async function serveInProcess(implementation: Implementation) {
  const client = createInProcessClient(Runner, implementation as ServiceImplementation<typeof Runner.method>);
  closers.push(() => client.close());
  return client;
}

describe.each([
  ["over the network", serveOverNetwork],
  ["in process", serveInProcess],
])("a client %s", (_name, serve) => {
  test("a typed unary call round-trips messages through protobuf binary", async () => {
    const client = await serve({
      findDefinition: async (request) => ({
        status: { state: ServerState.READY, language: "typescript" },
        locations: [
          { file: request.at?.file ?? "", range: { start: { line: 3, column: 7 }, end: { line: 3, column: 9 } } },
        ],
      }),
    });
    const answer = await client.findDefinition({
      workspace: { tenant: "t", workspace: "w" },
      at: { file: "src/a.ts", target: { case: "position", value: { line: 1, column: 2 } } },
    });
    expect(answer.status?.state).toBe(ServerState.READY);
    expect(answer.locations[0]?.file).toBe("src/a.ts");
    expect(answer.locations[0]?.range?.start).toMatchObject({ line: 3, column: 7 });
  });

  test("a GrpcStatusError becomes the status, message and trailers the client sees", async () => {
    const client = await serve({
      hover: async () => {
        throw new GrpcStatusError(grpc.status.NOT_FOUND, "no such file: a.ts", { "lspmesh-error-code": "NOT_FOUND" });
      },
    });
    const error = await client.hover({}).catch((e: grpc.ServiceError) => e);
    expect(error).toMatchObject({ code: grpc.status.NOT_FOUND, details: "no such file: a.ts" });
    expect((error as grpc.ServiceError).metadata.get("lspmesh-error-code")).toEqual(["NOT_FOUND"]);
  });

  test("an unexpected exception is reported as INTERNAL without its message", async () => {
    const client = await serve({
      hover: async () => {
        throw new Error("/secret/path exploded");
      },
    });
    const error = (await client.hover({}).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INTERNAL);
    expect(error.details).not.toContain("/secret/path");
  });

  test("the client deadline aborts the handler's signal", async () => {
    let aborted: Promise<boolean> | undefined;
    const client = await serve({
      hover: (_request, context) => {
        aborted = new Promise((resolve) => context.signal.addEventListener("abort", () => resolve(true)));
        return new Promise(() => {});
      },
    });
    const error = (await client.hover({}, { timeoutMs: 200 }).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    await expect(aborted).resolves.toBe(true);
  });

  test("a cancelled call fails CANCELLED and aborts the handler's signal", async () => {
    let aborted: Promise<boolean> | undefined;
    let handling: () => void = () => {};
    const handled = new Promise<void>((resolve) => {
      handling = resolve;
    });
    const client = await serve({
      hover: (_request, context) => {
        aborted = new Promise((resolve) => context.signal.addEventListener("abort", () => resolve(true)));
        handling();
        return new Promise(() => {});
      },
    });
    const cancel = new AbortController();
    const call = client.hover({}, { signal: cancel.signal }).catch((e: grpc.ServiceError) => e);
    // Cancelled once the server handles it (a cancel before that never reaches a handler).
    await handled;
    cancel.abort();
    expect(((await call) as grpc.ServiceError).code).toBe(grpc.status.CANCELLED);
    await expect(aborted).resolves.toBe(true);
  });
});
