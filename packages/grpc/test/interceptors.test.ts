// Interceptors on a real grpc-js server on a loopback port, on the network client and on the
// in-process client: the order they run in, calls they stop, failures that pass through them.
import * as grpc from "@grpc/grpc-js";
import { Runner, ServerState } from "@lspmesh/proto";
import { afterEach, describe, expect, test } from "vitest";
import {
  addService,
  type ClientOptions,
  createClient,
  GrpcStatusError,
  interceptImplementation,
  type ServiceImplementation,
  type ServiceOptions,
  UNAUTHENTICATED_MESSAGE,
} from "../src/grpcAdapter.js";
import { createInProcessClient } from "../src/inProcessClient.js";
import { callMetadataInterceptor, type Interceptor } from "../src/interceptors.js";

type Implementation = ServiceImplementation<typeof Runner.method>;

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function serve(implementation: Partial<Implementation>, options: ServiceOptions, client: ClientOptions = {}) {
  const server = new grpc.Server();
  addService(server, Runner, implementation as Implementation, options);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  closers.push(() => server.forceShutdown());
  const made = createClient(Runner, `127.0.0.1:${port}`, undefined, {}, client);
  closers.push(() => made.close());
  return made;
}

/** Records the method, the request id it saw, and when it saw the call and its outcome. */
function recording(name: string, seen: string[]): Interceptor {
  return (next) => async (call) => {
    seen.push(`${name} ${call.method.localName} ${call.context.metadata.get("x-request-id")[0] ?? "-"}`);
    try {
      return await next(call);
    } finally {
      seen.push(`${name} done`);
    }
  };
}

const hovering: Partial<Implementation> = {
  hover: async () => ({ status: { state: ServerState.READY }, contents: "a hover" }),
};

describe("server interceptors", () => {
  test("run around the handler, the first outermost, seeing the method and the metadata", async () => {
    const seen: string[] = [];
    const client = await serve(
      {
        hover: async () => {
          seen.push("handler");
          return { contents: "a hover" };
        },
      },
      { interceptors: [recording("outer", seen), recording("inner", seen)] },
    );
    const metadata = new grpc.Metadata();
    metadata.set("x-request-id", "req-1");
    expect((await client.hover({}, { metadata })).contents).toBe("a hover");
    expect(seen).toEqual(["outer hover req-1", "inner hover req-1", "handler", "inner done", "outer done"]);
  });

  test("one that refuses with a GrpcStatusError stops the call: the client sees its status and trailers", async () => {
    let handled = false;
    const refuse: Interceptor = () => async () => {
      throw new GrpcStatusError(grpc.status.RESOURCE_EXHAUSTED, "too many calls", { "lspmesh-error-code": "LIMIT" });
    };
    const client = await serve(
      {
        hover: async () => {
          handled = true;
          return {};
        },
      },
      { interceptors: [refuse] },
    );
    const error = (await client.hover({}).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error).toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED, details: "too many calls" });
    expect(error.metadata.get("lspmesh-error-code")).toEqual(["LIMIT"]);
    expect(handled).toBe(false);
  });

  test("a handler's unexpected failure passes through them to onUnexpectedError and reaches the client as INTERNAL", async () => {
    const failure = new Error("/secret/path exploded");
    const passed: unknown[] = [];
    const reported: Array<{ method: string; error: unknown }> = [];
    const client = await serve(
      {
        hover: async () => {
          throw failure;
        },
      },
      {
        interceptors: [
          (next) => (call) =>
            next(call).catch((error: unknown) => {
              passed.push(error);
              throw error;
            }),
        ],
        onUnexpectedError: (method, error) => reported.push({ method, error }),
      },
    );
    const error = (await client.hover({}).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INTERNAL);
    expect(error.details).not.toContain("/secret/path");
    expect(passed).toEqual([failure]);
    expect(reported).toEqual([{ method: "Hover", error: failure }]);
  });

  test("authorize runs before them: a refused call is UNAUTHENTICATED and no interceptor sees it", async () => {
    const seen: string[] = [];
    const client = await serve(hovering, {
      interceptors: [recording("interceptor", seen)],
      authorize: ({ metadata }) => metadata.get("authorization")[0] === "Bearer right",
    });
    const error = (await client.hover({}).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error).toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: UNAUTHENTICATED_MESSAGE });
    expect(seen).toEqual([]);
    const metadata = new grpc.Metadata();
    metadata.set("authorization", "Bearer right");
    expect((await client.hover({}, { metadata })).contents).toBe("a hover");
    expect(seen).toEqual(["interceptor hover -", "interceptor done"]);
  });

  test("one may hand the handler a different context", async () => {
    const client = await serve(
      { hover: async (_request, context) => ({ contents: String(context.metadata.get("added")[0]) }) },
      {
        interceptors: [
          (next) => (call) => {
            const metadata = call.context.metadata.clone();
            metadata.set("added", "by the interceptor");
            return next({ ...call, context: { ...call.context, metadata } });
          },
        ],
      },
    );
    expect((await client.hover({})).contents).toBe("by the interceptor");
  });
});

describe("client interceptors", () => {
  test("run before the call goes out, the first outermost, and may add metadata", async () => {
    const seen: string[] = [];
    let received: string | undefined;
    const client = await serve(
      {
        hover: async (_request, context) => {
          received = context.metadata.get("x-request-id")[0] as string;
          return { contents: "a hover" };
        },
      },
      {},
      {
        interceptors: [
          recording("outer", seen),
          callMetadataInterceptor(() => ({ "x-request-id": "from-client" })),
          recording("inner", seen),
        ],
      },
    );
    expect((await client.hover({})).contents).toBe("a hover");
    expect(received).toBe("from-client");
    expect(seen).toEqual(["outer hover -", "inner hover from-client", "inner done", "outer done"]);
  });

  test("a function instead of options is metadata for every call", async () => {
    let received: unknown;
    const server = new grpc.Server();
    addService(server, Runner, {
      hover: async (_request, context) => {
        received = context.metadata.get("authorization")[0];
        return {};
      },
    } as Partial<Implementation> as Implementation);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    closers.push(() => server.forceShutdown());
    const client = createClient(Runner, `127.0.0.1:${port}`, undefined, {}, () => ({ authorization: "Bearer s" }));
    closers.push(() => client.close());
    await client.hover({});
    expect(received).toBe("Bearer s");
  });

  test("one may answer without calling the server; a server failure passes through unchanged", async () => {
    const cached: Interceptor = (next) => (call) =>
      call.method.localName === "describe" ? Promise.resolve({ runnerId: "cached", languages: [] }) : next(call);
    const passed: unknown[] = [];
    const observe: Interceptor = (next) => (call) =>
      next(call).catch((error: unknown) => {
        passed.push(error);
        throw error;
      });
    const notFound: Partial<Implementation> = {
      hover: async () => {
        throw new GrpcStatusError(grpc.status.NOT_FOUND, "no such file");
      },
    };
    const client = await serve(notFound, {}, { interceptors: [observe, cached] });
    expect(await client.describe({})).toEqual({ runnerId: "cached", languages: [] });
    const error = (await client.hover({}).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error).toMatchObject({ code: grpc.status.NOT_FOUND, details: "no such file" });
    expect(passed).toEqual([error]);
  });
});

describe("in-process client interceptors", () => {
  test("run around the implementation as on a server, and see its failures", async () => {
    const seen: string[] = [];
    const reported: string[] = [];
    const client = createInProcessClient(
      Runner,
      {
        ...hovering,
        diagnostics: async () => {
          throw new Error("exploded");
        },
      } as Partial<Implementation> as Implementation,
      {
        interceptors: [recording("outer", seen), recording("inner", seen)],
        onUnexpectedError: (m) => reported.push(m),
      },
    );
    closers.push(() => client.close());
    const metadata = new grpc.Metadata();
    metadata.set("x-request-id", "req-2");
    expect((await client.hover({}, { metadata })).contents).toBe("a hover");
    expect(seen).toEqual(["outer hover req-2", "inner hover req-2", "inner done", "outer done"]);
    const error = (await client.diagnostics({}).catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INTERNAL);
    expect(reported).toEqual(["Diagnostics"]);
  });
});

test("interceptImplementation wraps each method of an implementation called directly", async () => {
  const seen: string[] = [];
  const implementation = interceptImplementation(Runner, hovering as Implementation, [recording("wrapped", seen)]);
  const answer = await implementation.hover({} as never, {
    metadata: new grpc.Metadata(),
    signal: new AbortController().signal,
    deadlineMs: Number.POSITIVE_INFINITY,
  });
  expect(answer.contents).toBe("a hover");
  expect(seen).toEqual(["wrapped hover -", "wrapped done"]);
  expect(implementation.findDefinition).toBeUndefined();
});
