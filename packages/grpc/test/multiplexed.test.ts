// Runner calls on one stream (createMultiplexedClient ↔ addMultiplexedService) against a real
// grpc-js server on loopback: they must answer, fail and be cancelled as unary calls are.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { Runner, RunnerCalls, ServerState } from "@lspmesh/proto";
import { afterEach, describe, expect, test } from "vitest";
import { EncodedMessage } from "../src/encodedMessage.js";
import { addService, createClient, GrpcStatusError, type ServiceImplementation } from "../src/grpcAdapter.js";
import { GrpcAuth } from "../src/grpcAuth.js";
import { createInProcessClient } from "../src/inProcessClient.js";
import type { Interceptor } from "../src/interceptors.js";
import { createMultiplexedClient, type MultiplexedClientOptions } from "../src/multiplexedClient.js";
import { addMultiplexedService, type MultiplexedServiceOptions } from "../src/multiplexedServer.js";

type Implementation = Partial<ServiceImplementation<typeof Runner.method>>;

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0).reverse()) close();
});

const READY = { state: ServerState.READY, language: "typescript" };
const hover = (contents: string) => async () => ({ status: READY, contents });

interface Served {
  port: number;
  /** Streams the server authorized (opened). */
  opened: () => number;
  drain: () => void;
  server: grpc.Server;
}

async function serve(
  implementation: Implementation,
  { stream = true, port = 0, ...options }: MultiplexedServiceOptions & { stream?: boolean; port?: number } = {},
): Promise<Served> {
  const server = new grpc.Server();
  const impl = implementation as ServiceImplementation<typeof Runner.method>;
  let opened = 0;
  const authorize = options.authorize ?? (() => true);
  addService(server, Runner, impl, options);
  const calls = stream
    ? addMultiplexedService(server, RunnerCalls, Runner, impl, {
        ...options,
        authorize: (call) => {
          opened++;
          return authorize(call);
        },
      })
    : undefined;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, at) =>
      error ? reject(error) : resolve(at),
    ),
  );
  closers.push(() => server.forceShutdown());
  return { port: bound, opened: () => opened, drain: () => calls?.drain(), server };
}

function client(port: number, options: Partial<MultiplexedClientOptions> = {}) {
  const made = createMultiplexedClient(
    Runner,
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
    { "grpc.initial_reconnect_backoff_ms": 50, "grpc.max_reconnect_backoff_ms": 100 },
    { calls: RunnerCalls, ...options },
  );
  closers.push(() => made.close());
  return made;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: grpc.ServiceError) => error,
  );

/** Shaped as grpc-js's ServiceError, as the gateway's error translation reads it. */
function expectServiceError(error: grpc.ServiceError, code: grpc.status) {
  expect(error).toBeInstanceOf(Error);
  expect(error.code).toBe(code);
  expect(error.metadata).toBeInstanceOf(grpc.Metadata);
  expect(typeof error.details).toBe("string");
}

const until = (condition: () => boolean) =>
  new Promise<void>((resolve) => {
    const check = () => (condition() ? resolve() : setTimeout(check, 5));
    check();
  });

describe("calls on one stream", () => {
  test("answer, concurrently on one stream, each matched to its call", async () => {
    const served = await serve({
      hover: async (request) => {
        const line = request.at?.target.case === "position" ? request.at.target.value.line : 0;
        // The later calls answer first.
        await new Promise((resolve) => setTimeout(resolve, 60 - line * 10));
        return { status: READY, contents: `line ${line}` };
      },
    });
    const runner = client(served.port);
    const at = (line: number) => ({ at: { file: "a.ts", target: { case: "position" as const, value: { line } } } });
    const answers = await Promise.all([1, 2, 3, 4, 5].map((line) => runner.hover(at(line))));
    expect(answers.map((answer) => answer.contents)).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
    expect(answers[0]?.status?.state).toBe(ServerState.READY);
    expect(served.opened()).toBe(1);
  });

  test("a relay gets the request's bytes and its encoded answer arrives as it was, on a stream, unary and in process", async () => {
    const relayed: Array<Uint8Array | undefined> = [];
    // What a tenant worker's relay does: the bytes go on, another process answers in bytes.
    const implementation: Implementation = {
      hover: async (request, context) => {
        relayed.push(context.requestBytes);
        const line = request.at?.target.case === "position" ? request.at.target.value.line : -1;
        const output = Runner.method.hover.output;
        return new EncodedMessage(
          toBinary(output, create(output, { status: READY, contents: `line ${line}` })),
        ) as never;
      },
    };
    const served = await serve(implementation);
    const request = { at: { file: "a.ts", target: { case: "position" as const, value: { line: 7 } } } };
    const inProcess = createInProcessClient(Runner, implementation as ServiceImplementation<typeof Runner.method>);
    for (const runner of [client(served.port), createClient(Runner, `127.0.0.1:${served.port}`), inProcess]) {
      const answer = await runner.hover(request);
      expect(answer.contents).toBe("line 7");
      expect(answer.status?.state).toBe(ServerState.READY);
      runner.close();
    }
    // Only the stream of calls hands the handler the bytes it decoded the request from.
    expect(relayed).toHaveLength(3);
    expect(fromBinary(Runner.method.hover.input, relayed[0]!).at?.target.value).toMatchObject({ line: 7 });
    expect(relayed.slice(1)).toEqual([undefined, undefined]);
  });

  test("the deadline fails the call DEADLINE_EXCEEDED and aborts the handler's signal", async () => {
    let signal: AbortSignal | undefined;
    const served = await serve({
      hover: (_request, context) => {
        signal = context.signal;
        return new Promise(() => {});
      },
    });
    const started = Date.now();
    const error = await failure(client(served.port).hover({}, { timeoutMs: 150 }));
    expectServiceError(error, grpc.status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(1000);
    await until(() => signal?.aborted === true);
  });

  test("an aborted signal cancels the call and the handler's signal", async () => {
    let signal: AbortSignal | undefined;
    const served = await serve({
      hover: (_request, context) => {
        signal = context.signal;
        return new Promise(() => {});
      },
    });
    const abort = new AbortController();
    const pending = failure(client(served.port).hover({}, { signal: abort.signal }));
    await until(() => signal !== undefined);
    abort.abort();
    expectServiceError(await pending, grpc.status.CANCELLED);
    await until(() => signal?.aborted === true);
  });

  test("a status with trailers arrives as from a unary call; the stream goes on", async () => {
    const served = await serve({
      hover: async () => {
        throw new GrpcStatusError(grpc.status.NOT_FOUND, "no such file: a.ts", { "lspmesh-error-code": "NOT_FOUND" });
      },
      findDefinition: async () => {
        throw new Error("/secret/path exploded");
      },
      describe: async () => ({ runnerId: "r1" }),
    });
    const runner = client(served.port);
    const unary = createClient(Runner, `127.0.0.1:${served.port}`);
    closers.push(() => unary.close());
    const [viaStream, viaUnary] = await Promise.all([failure(runner.hover({})), failure(unary.hover({}))]);
    expectServiceError(viaStream, grpc.status.NOT_FOUND);
    expect(viaStream.details).toBe(viaUnary.details);
    expect(viaStream.metadata.get("lspmesh-error-code")).toEqual(["NOT_FOUND"]);
    const internal = await failure(runner.findDefinition({}));
    expectServiceError(internal, grpc.status.INTERNAL);
    expect(internal.details).not.toContain("/secret/path");
    expect((await runner.describe({})).runnerId).toBe("r1");
    expect(served.opened()).toBe(1);
  });

  test("the stream is refused without the secret, and authorized once with it", async () => {
    const auth = GrpcAuth.from({ secret: "s3cret-s3cret-s3cret" });
    const served = await serve({ hover: hover("ok") }, { authorize: (call) => auth.authorizes(call) });
    const refused = await failure(client(served.port).hover({}));
    expectServiceError(refused, grpc.status.UNAUTHENTICATED);
    const runner = client(served.port, {
      interceptors: [(next) => (call) => next(withMetadata(call, "authorization", "Bearer s3cret-s3cret-s3cret"))],
    });
    await Promise.all([runner.hover({}), runner.hover({}), runner.hover({})]);
    expect(served.opened()).toBe(2);
  });

  test("a changed secret opens a new stream, checked again", async () => {
    let secret = "first-secret-first-secret";
    const served = await serve(
      { hover: hover("ok") },
      { authorize: (call) => call.metadata.get("authorization")[0] === `Bearer ${secret}` },
    );
    let sending = secret;
    const runner = client(served.port, {
      interceptors: [(next) => (call) => next(withMetadata(call, "authorization", `Bearer ${sending}`))],
    });
    await runner.hover({});
    // The runner's secret rotates: an open stream was authorized once, and stays so until it ages.
    secret = "second-secret-second-secret";
    await runner.hover({});
    expect(served.opened()).toBe(1);
    sending = secret;
    expect((await runner.hover({})).contents).toBe("ok");
    expect(served.opened()).toBe(2);
    sending = "first-secret-first-secret";
    expectServiceError(await failure(runner.hover({})), grpc.status.UNAUTHENTICATED);
    expect(served.opened()).toBe(3);
  });

  test("a broken stream fails its calls UNAVAILABLE; the next call opens a new one", async () => {
    const first = await serve({ hover: () => new Promise(() => {}) });
    const runner = client(first.port);
    const pending = failure(runner.hover({}, { timeoutMs: 10_000 }));
    await until(() => first.opened() === 1);
    first.server.forceShutdown();
    const error = await pending;
    expectServiceError(error, grpc.status.UNAVAILABLE);
    expect(error.metadata.get("lspmesh-error-code")).toEqual([]);
    const second = await serve({ hover: hover("again") }, { port: first.port });
    await retrying(async () => expect((await runner.hover({}, { timeoutMs: 2000 })).contents).toBe("again"));
    expect(second.opened()).toBe(1);
  });

  test("a server without the stream method gets unary calls", async () => {
    const served = await serve(
      {
        hover: hover("unary"),
        findDefinition: async () => {
          throw new GrpcStatusError(grpc.status.NOT_FOUND, "gone", { "lspmesh-error-code": "NOT_FOUND" });
        },
      },
      { stream: false },
    );
    const runner = client(served.port);
    const answers = await Promise.all([runner.hover({}), runner.hover({})]);
    expect(answers.map((answer) => answer.contents)).toEqual(["unary", "unary"]);
    expect((await runner.hover({})).contents).toBe("unary");
    const error = await failure(runner.findDefinition({}));
    expectServiceError(error, grpc.status.NOT_FOUND);
    expect(error.metadata.get("lspmesh-error-code")).toEqual(["NOT_FOUND"]);
  });

  test("interceptors run per call on both sides, with the call's metadata", async () => {
    const seen: string[] = [];
    const server: Interceptor = (next) => (call) => {
      seen.push(`${call.method.name} ${call.context.metadata.get("x-request-id")[0]}`);
      return next(call);
    };
    const served = await serve({ hover: hover("ok"), describe: async () => ({}) }, { interceptors: [server] });
    let sent = 0;
    const counting: Interceptor = (next) => (call) => {
      sent++;
      return next(withMetadata(call, "x-request-id", `r${sent}`));
    };
    const runner = client(served.port, { interceptors: [counting] });
    await runner.hover({});
    await runner.describe({});
    expect(sent).toBe(2);
    expect(seen).toEqual(["Hover r1", "Describe r2"]);
  });

  test("a stream past its age takes no new calls; the next opens another", async () => {
    const served = await serve({ hover: hover("ok") });
    const runner = client(served.port, { maxStreamAgeMs: 50 });
    await runner.hover({});
    await new Promise((resolve) => setTimeout(resolve, 80));
    await runner.hover({});
    expect(served.opened()).toBe(2);
  });

  test("calls beyond the per-stream bound wait; draining answers those under way, refuses new ones", async () => {
    let running = 0;
    let most = 0;
    const served = await serve(
      {
        hover: async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 30));
          running--;
          return { status: READY, contents: "ok" };
        },
      },
      { maxConcurrentCalls: 2 },
    );
    const runner = client(served.port);
    const answers = await Promise.all(Array.from({ length: 6 }, () => runner.hover({})));
    expect(answers).toHaveLength(6);
    expect(most).toBe(2);
    const underWay = runner.hover({});
    await until(() => running === 1);
    served.drain();
    expect((await underWay).contents).toBe("ok");
    expectServiceError(await failure(runner.hover({})), grpc.status.UNAVAILABLE);
  });
});

function withMetadata<T extends { context: { metadata: grpc.Metadata } }>(call: T, key: string, value: string): T {
  call.context.metadata.set(key, value);
  return call;
}

async function retrying(attempt: () => Promise<void>, tries = 20): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
