#!/usr/bin/env node
// The gateway → runner call by itself, with no language server behind it: a child process plays
// the runner (its CPU apart from the gateway's, as in two pods) and answers FindDefinition and Hover
// with canned answers the size of real ones (1–3 locations with snippets; ~500 characters of
// hover). The same calls, alternating the two methods, go through each transport, the variants
// interleaved in an order that rotates every round:
//   a   product   createClient of @lspmesh/grpc as the gateway's router makes it (its channel
//                 options, per-runner shared secret read per call) → addService as the runner's
//                 endpoint registers it (credentials checked per call; its in-flight count and a
//                 copy of its call log interceptor)
//   a1  product, the runner's server with channelz off (a services change, measured here)
//   a0  before    the same with another build of @lspmesh/grpc (--before, e.g. a copy of its dist
//                 before a change), to compare a change in the same run
//   b   grpc-js   grpc-js alone: generic client and raw handlers, no interceptors, channelz and
//                 retries off; the same metadata, secret check and deadline on the wire
//   s   product stream  createMultiplexedClient of @lspmesh/grpc as the router makes it by default
//                 (LSPMESH_RUNNER_TRANSPORT=stream) → addMultiplexedService on a's server, as the
//                 runner's endpoint registers it (credentials checked per stream; the same
//                 interceptors per call)
//   c   mux       one long-lived grpc-js bidi stream per runner carrying every call (request-id
//                 framing, per-call deadline and cancel frames; credentials checked once per stream)
//   d   connect   connect-es (@connectrpc/connect-node) speaking gRPC over HTTP/2
//   e   http2     node:http2 with protobuf-es toBinary/fromBinary and nothing else (no gRPC framing,
//                 deadline or cancellation): a lower bound
// Each call carries what the gateway sends (x-request-id, a 30 s deadline, an abort signal).
// Per variant: sequential p50/p90 µs per call, calls/s with 8 and 64 callers, and CPU µs per call
// on each side (process.cpuUsage deltas over the calls with 8 and 64 callers in a round, median over
// the rounds; the runner process reports its own over its stdin/stdout), with ratios against `a`
// measured in the same run (medians of the per-round ratios).
// Then protobuf-es encode/decode of the real messages, default options against
// readUnknownFields/writeUnknownFields false.
// Usage: npx node bench/runnerTransport.mjs [--rounds 3] [--calls 400] [--ms 1000]
//          [--only a,b,…] [--before /path/to/grpc/dist/index.js] [--codec 0 (skip the codec table)]
import { spawn } from "node:child_process";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import * as product from "@lspmesh/grpc";
import {
  HoverAnswerSchema,
  LocationsAnswerSchema,
  PositionRequestSchema,
  REQUEST_ID_METADATA,
  Runner,
  RunnerCalls,
  ServerState,
} from "@lspmesh/proto";
import { createJsonLogger } from "@lspmesh/service-kit";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "400" },
    ms: { type: "string", default: "1000" },
    only: { type: "string" },
    before: { type: "string" },
    codec: { type: "string", default: "1" },
    serve: { type: "string" },
  },
});
const RUNNER_ID = "pool-a.runner-0";
const TIMEOUT_MS = 30_000;
const MAX = product.MAX_GRPC_MESSAGE_BYTES;
/** The gateway's channel options (services/gateway/src/routing/runnerRouter.ts). */
const CHANNEL_OPTIONS = {
  "grpc.keepalive_time_ms": 20_000,
  "grpc.keepalive_timeout_ms": 5_000,
  "grpc.keepalive_permit_without_calls": 1,
  "grpc.max_receive_message_length": MAX,
  "grpc.max_reconnect_backoff_ms": 5_000,
  "grpc.initial_reconnect_backoff_ms": 200,
};
/** The lightest grpc-js options found: no channelz bookkeeping, no retry state. */
const LIGHT_OPTIONS = { "grpc.enable_channelz": 0, "grpc.enable_retries": 0, "grpc.max_receive_message_length": MAX };
const METHODS = [Runner.method.findDefinition, Runner.method.hover];
const MUX_PATH = "/lspmesh.bench.Mux/Calls";
const DESCRIPTIONS = {
  a: "product adapter",
  a1: "a, runner channelz off",
  a0: "adapter --before",
  s: "product stream",
  b: "grpc-js bare",
  c: "bidi-stream mux",
  d: "connect-es gRPC",
  e: "node:http2 floor",
};

// ---------------------------------------------------------------------------------------------
// Canned messages

const SNIPPETS = [
  [
    "src/server/routes/users.ts",
    "export async function createUserHandler(c: Context<AppEnv>, input: NewUser): Promise<Response> {",
  ],
  [
    "src/server/services/userService.ts",
    "  async create(input: NewUser, options: CreateOptions = {}): Promise<User> {",
  ],
  ["node_modules/hono/dist/types/context.d.ts", "    json: JSONRespond;"],
];
const HOVER = [
  "```typescript",
  'function createUserHandler(c: Context<AppEnv, "/users", BlankInput>, input: NewUser): Promise<Response>',
  "```",
  "Creates a user from the validated request body and answers 201 with its public fields.",
  "",
  "*@param* `c` — the request context (tenant, logger and database handle in `c.var`)",
  "",
  "*@param* `input` — the body, already checked against `newUserSchema`",
  "",
  "*@returns* the JSON response; 409 when the e-mail address is taken",
  "",
  "*@throws* `HTTPException` when the tenant is over its user quota",
].join("\n");

const status = () => ({
  state: ServerState.READY,
  language: "typescript",
  server: "typescript-language-server 5.3.0 (TypeScript 5.9.3)",
  resolved: { line: 42, column: 23 },
});
const range = (line, column, length) => ({ start: { line, column }, end: { line, column: column + length } });

/** What a runner's handler returns (an init object, built per call as a real handler does). */
function answerFor(methodIndex, serial) {
  if (methodIndex === 1) return { status: status(), contents: HOVER, range: range(42, 23, 17) };
  const locations = [];
  for (let i = 0; i <= serial % 3; i++) {
    const [file, snippet] = SNIPPETS[i];
    locations.push({ file, range: range(12 + i * 40, 17, 17), snippet, external: i === 2 });
  }
  return { status: status(), locations };
}

const requestInit = (serial) => ({
  workspace: { tenant: "acme", workspace: "web-app" },
  at: {
    file: "src/server/app.ts",
    target: { case: "symbol", value: { name: "createUserHandler", lineHint: 40 + (serial % 5) } },
  },
});

function readSecrets(dir) {
  return {
    keyFile: join(dir, "gateway.key"),
    runnerFile: join(dir, "runner.secret"),
    bearer: `Bearer ${readFileSync(join(dir, "runner.secret"), "utf8").trim()}`,
  };
}

/** A constant-time check of the authorization value against the runner's (the light variants). */
function bearerCheck(expected) {
  const want = Buffer.from(expected);
  return (value) => {
    if (typeof value !== "string") return false;
    const got = Buffer.from(value);
    return got.length === want.length && timingSafeEqual(got, want);
  };
}

// ---------------------------------------------------------------------------------------------
// Runner side (child process)

/**
 * What the runner's call log interceptor does per call (services/lsp-runner/src/grpc/callLog.ts;
 * the package does not export it): the request id checked, the duration, a debug line.
 */
function callLogInterceptor(log) {
  return (next) => async (call) => {
    const started = performance.now();
    const [value] = call.context.metadata.get(REQUEST_ID_METADATA);
    const requestId = typeof value === "string" && /^[\w.:-]{1,128}$/.test(value) ? value : undefined;
    const answer = await next(call);
    const durationMs = Math.round(performance.now() - started);
    log({ level: "debug", msg: "rpc", method: call.method.localName, requestId, durationMs });
    return answer;
  };
}

function bindGrpc(server) {
  return new Promise((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
}

/** The runner's endpoint as runnerEndpoint.ts builds it, with the given build of @lspmesh/grpc. */
function startAdapterServer(adapter, secrets, serverOptions = {}) {
  const runnerAuth = adapter.GrpcAuth.from({ secretFile: secrets.runnerFile });
  const logger = createJsonLogger({ service: "runner", level: "info" });
  const log = ({ level, msg, ...fields }) => logger[level === "debug" ? "debug" : "info"](String(msg), fields);
  const server = new grpc.Server({ "grpc.max_receive_message_length": MAX, ...serverOptions });
  const inFlight = new adapter.InFlightCalls();
  let serial = 0;
  const implementation = {
    findDefinition: async () => answerFor(0, serial++),
    hover: async () => answerFor(1, serial++),
  };
  const serviceOptions = {
    authorize: (call) => runnerAuth.authorizes(call),
    interceptors: [inFlight.interceptor, callLogInterceptor(log)],
    onUnexpectedError: (method, error) =>
      log({ level: "error", msg: "unexpected error", method, error: String(error) }),
  };
  adapter.addService(server, Runner, implementation, serviceOptions);
  // The stream of calls beside it (variant s), as runnerEndpoint.ts registers it; not in --before builds.
  adapter.addMultiplexedService?.(server, RunnerCalls, Runner, implementation, serviceOptions);
  return bindGrpc(server);
}

/** grpc-js with hand-written handlers and serialisers. */
function startBareServer(secrets) {
  const authorized = bearerCheck(secrets.bearer);
  const server = new grpc.Server({ "grpc.enable_channelz": 0, "grpc.max_receive_message_length": MAX });
  const definition = {};
  const handlers = {};
  let serial = 0;
  METHODS.forEach((method, index) => {
    definition[method.localName] = {
      path: `/${Runner.typeName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (message) => Buffer.from(toBinary(method.input, message)),
      requestDeserialize: (bytes) => fromBinary(method.input, bytes),
      responseSerialize: (message) => Buffer.from(toBinary(method.output, message)),
      responseDeserialize: (bytes) => fromBinary(method.output, bytes),
    };
    handlers[method.localName] = (call, callback) => {
      if (!authorized(call.metadata.get("authorization")[0]))
        return callback({ code: grpc.status.UNAUTHENTICATED, details: "no" });
      callback(null, create(method.output, answerFor(index, serial++)));
    };
  });
  server.addService(definition, handlers);
  return bindGrpc(server);
}

const muxDefinition = {
  calls: {
    path: MUX_PATH,
    requestStream: true,
    responseStream: true,
    requestSerialize: (bytes) => bytes,
    requestDeserialize: (bytes) => bytes,
    responseSerialize: (bytes) => bytes,
    responseDeserialize: (bytes) => bytes,
  },
};

// Mux frames. Call: [0]=0, [1..4] id, [5] method, [6..9] deadline ms (0: none), [10] request id
// length, request id, request. Cancel: [0]=1, [1..4] id. Answer: [0..3] id, [4] gRPC status,
// then the answer message (status 0) or the error's details as UTF-8.
function muxAnswerFrame(id, code, payload) {
  const frame = Buffer.allocUnsafe(5 + payload.length);
  frame.writeUInt32BE(id, 0);
  frame[4] = code;
  frame.set(payload, 5);
  return frame;
}

/** One handler call of the mux: its own abort signal (cancel frame, deadline), answer or status. */
function muxHandle(stream, frame, running, serial) {
  const id = frame.readUInt32BE(1);
  if (frame[0] === 1) return running.get(id)?.abort(new Error("cancelled by client"));
  const methodIndex = frame[5];
  const deadlineMs = frame.readUInt32BE(6);
  const idLength = frame[10];
  const method = METHODS[methodIndex];
  const abort = new AbortController();
  const timer = deadlineMs > 0 ? setTimeout(() => abort.abort(new Error("deadline")), deadlineMs) : undefined;
  running.set(id, abort);
  const context = { requestId: frame.toString("latin1", 11, 11 + idLength), signal: abort.signal, deadlineMs };
  const request = fromBinary(method.input, frame.subarray(11 + idLength));
  Promise.resolve(answerFor(methodIndex, serial, request, context)).then(
    (answer) => {
      clearTimeout(timer);
      running.delete(id);
      if (!abort.signal.aborted)
        stream.write(muxAnswerFrame(id, 0, toBinary(method.output, create(method.output, answer))));
    },
    (error) => {
      clearTimeout(timer);
      running.delete(id);
      stream.write(muxAnswerFrame(id, grpc.status.INTERNAL, Buffer.from(String(error))));
    },
  );
}

function startMuxServer(secrets) {
  const authorized = bearerCheck(secrets.bearer);
  const server = new grpc.Server({ "grpc.enable_channelz": 0, "grpc.max_receive_message_length": MAX });
  let serial = 0;
  server.addService(muxDefinition, {
    calls: (stream) => {
      // Credentials once, for the stream's whole life.
      if (!authorized(stream.metadata.get("authorization")[0])) {
        stream.emit("error", { code: grpc.status.UNAUTHENTICATED, details: "no" });
        return;
      }
      const running = new Map();
      stream.on("data", (frame) => muxHandle(stream, frame, running, serial++));
      stream.on("end", () => stream.end());
      stream.on("cancelled", () => {
        for (const abort of running.values()) abort.abort(new Error("stream cancelled"));
      });
    },
  });
  return bindGrpc(server);
}

async function startConnectServer(secrets) {
  const { Code, ConnectError } = await import("@connectrpc/connect");
  const { connectNodeAdapter } = await import("@connectrpc/connect-node");
  const authorized = bearerCheck(secrets.bearer);
  let serial = 0;
  const guarded = (index) => async (_request, context) => {
    if (!authorized(context.requestHeader.get("authorization") ?? undefined))
      throw new ConnectError("no", Code.Unauthenticated);
    return answerFor(index, serial++);
  };
  const handler = connectNodeAdapter({
    grpc: true,
    grpcWeb: false,
    connect: false,
    readMaxBytes: MAX,
    routes: (router) => router.service(Runner, { findDefinition: guarded(0), hover: guarded(1) }),
  });
  return listenHttp2(http2.createServer(handler));
}

function startHttp2Server(secrets) {
  const authorized = bearerCheck(secrets.bearer);
  const byPath = new Map(METHODS.map((method, index) => [`/${Runner.typeName}/${method.name}`, index]));
  const server = http2.createServer();
  let serial = 0;
  server.on("stream", (stream, headers) => {
    const index = byPath.get(headers[":path"]);
    if (index === undefined || !authorized(headers.authorization)) {
      stream.respond({ ":status": index === undefined ? 404 : 401 });
      return stream.end();
    }
    const chunks = [];
    stream.on("data", (chunk) => chunks.push(chunk));
    stream.on("end", () => {
      const method = METHODS[index];
      fromBinary(method.input, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      const answer = toBinary(method.output, create(method.output, answerFor(index, serial++)));
      stream.respond({ ":status": 200, "content-type": "application/proto" });
      stream.end(answer);
    });
  });
  return listenHttp2(server);
}

function listenHttp2(server) {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
}

async function serve(dir) {
  const secrets = readSecrets(dir);
  const ports = { a: await startAdapterServer(product, secrets) };
  ports.a1 = await startAdapterServer(product, secrets, { "grpc.enable_channelz": 0 });
  if (values.before) ports.a0 = await startAdapterServer(await import(pathToFileURL(values.before)), secrets);
  ports.b = await startBareServer(secrets);
  ports.c = await startMuxServer(secrets);
  ports.d = await startConnectServer(secrets);
  ports.e = await startHttp2Server(secrets);
  process.stdout.write(`${JSON.stringify({ ports })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === "cpu") process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
    else break;
  }
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Gateway side: one `call(methodIndex, serial, { requestId, signal, timeoutMs })` per variant

/** The router's client (runnerRouter.ts connect()) and the gateway's call options (toolCall.ts). */
function adapterCaller(adapter, port, secrets, stream = false) {
  const auth = adapter.GrpcAuth.from({ secretFile: secrets.keyFile, perRunnerSecrets: true });
  const options = { interceptors: [adapter.callMetadataInterceptor(() => auth.callMetadata(RUNNER_ID))] };
  const address = `127.0.0.1:${port}`;
  const client = stream
    ? adapter.createMultiplexedClient(Runner, address, auth.channelCredentials(), CHANNEL_OPTIONS, {
        ...options,
        calls: RunnerCalls,
      })
    : adapter.createClient(Runner, address, auth.channelCredentials(), CHANNEL_OPTIONS, options);
  const rpcs = METHODS.map((method) => client[method.localName]);
  return {
    call(index, serial, { requestId, signal, timeoutMs }) {
      const metadata = new adapter.Metadata();
      metadata.set(REQUEST_ID_METADATA, requestId);
      return rpcs[index](requestInit(serial), { timeoutMs, metadata, signal });
    },
    close: () => client.close(),
  };
}

function bareCaller(port, secrets) {
  const definition = {};
  for (const method of METHODS)
    definition[method.localName] = {
      path: `/${Runner.typeName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (message) => Buffer.from(toBinary(method.input, message)),
      responseDeserialize: (bytes) => fromBinary(method.output, bytes),
    };
  const Client = grpc.makeGenericClientConstructor(definition, "Runner");
  const channel = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), LIGHT_OPTIONS);
  return {
    call(index, serial, { requestId, signal, timeoutMs }) {
      const method = METHODS[index];
      const metadata = new grpc.Metadata();
      metadata.set("authorization", secrets.bearer);
      metadata.set(REQUEST_ID_METADATA, requestId);
      return new Promise((resolve, reject) => {
        const onAbort = () => pending.cancel();
        const pending = channel[method.localName](
          create(method.input, requestInit(serial)),
          metadata,
          { deadline: Date.now() + timeoutMs },
          (error, answer) => {
            signal.removeEventListener("abort", onAbort);
            error ? reject(error) : resolve(answer);
          },
        );
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    close: () => channel.close(),
  };
}

/** The client end of the mux: one stream (opened again after it fails), calls told apart by id. */
function muxCaller(port, secrets) {
  const Client = grpc.makeGenericClientConstructor(muxDefinition, "Mux");
  const channel = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    ...CHANNEL_OPTIONS,
    "grpc.enable_channelz": 0,
  });
  const pending = new Map();
  let stream;
  let nextId = 1;
  const open = () => {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", secrets.bearer);
    const opened = channel.calls(metadata);
    opened.on("data", (frame) => {
      const entry = pending.get(frame.readUInt32BE(0));
      if (!entry) return;
      const code = frame[4];
      if (code === 0) entry.settle(null, fromBinary(METHODS[entry.index].output, frame.subarray(5)));
      else entry.settle(Object.assign(new Error(frame.toString("utf8", 5)), { code }));
    });
    const fail = (error) => {
      if (stream === opened) stream = undefined;
      for (const entry of pending.values()) entry.settle(Object.assign(new Error(String(error)), { code: 14 }));
    };
    opened.on("error", fail);
    opened.on("end", () => fail("stream ended"));
    return opened;
  };
  const cancelFrame = (id) => {
    const frame = Buffer.alloc(5);
    frame[0] = 1;
    frame.writeUInt32BE(id, 1);
    stream?.write(frame);
  };
  return {
    call(index, serial, { requestId, signal, timeoutMs }) {
      stream ??= open();
      const id = nextId++ >>> 0;
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          cancelFrame(id);
          settle(Object.assign(new Error("cancelled"), { code: grpc.status.CANCELLED }));
        };
        const timer = setTimeout(() => {
          cancelFrame(id);
          settle(Object.assign(new Error("deadline exceeded"), { code: grpc.status.DEADLINE_EXCEEDED }));
        }, timeoutMs);
        const settle = (error, answer) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          pending.delete(id);
          error ? reject(error) : resolve(answer);
        };
        pending.set(id, { index, settle });
        signal.addEventListener("abort", onAbort, { once: true });
        stream.write(muxCallFrame(id, index, timeoutMs, requestId, serial));
      });
    },
    close: () => {
      stream?.end();
      channel.close();
    },
  };
}

function muxCallFrame(id, index, timeoutMs, requestId, serial) {
  const method = METHODS[index];
  const body = toBinary(method.input, create(method.input, requestInit(serial)));
  const frame = Buffer.allocUnsafe(11 + requestId.length + body.length);
  frame[0] = 0;
  frame.writeUInt32BE(id, 1);
  frame[5] = index;
  frame.writeUInt32BE(timeoutMs, 6);
  frame[10] = requestId.length;
  frame.write(requestId, 11, "latin1");
  frame.set(body, 11 + requestId.length);
  return frame;
}

async function connectCaller(port, secrets) {
  const { createClient } = await import("@connectrpc/connect");
  const { createGrpcTransport } = await import("@connectrpc/connect-node");
  const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}`, readMaxBytes: MAX });
  const client = createClient(Runner, transport);
  const rpcs = METHODS.map((method) => client[method.localName]);
  return {
    call: (index, serial, { requestId, signal, timeoutMs }) =>
      rpcs[index](requestInit(serial), {
        timeoutMs,
        signal,
        headers: { authorization: secrets.bearer, [REQUEST_ID_METADATA]: requestId },
      }),
    close: () => {},
  };
}

function http2Caller(port, secrets) {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  const paths = METHODS.map((method) => `/${Runner.typeName}/${method.name}`);
  return {
    call: (index, serial, { requestId }) =>
      new Promise((resolve, reject) => {
        const method = METHODS[index];
        const request = session.request({
          ":method": "POST",
          ":path": paths[index],
          "content-type": "application/proto",
          authorization: secrets.bearer,
          [REQUEST_ID_METADATA]: requestId,
        });
        const chunks = [];
        let code = 0;
        request.on("response", (headers) => {
          code = headers[":status"];
        });
        request.on("data", (chunk) => chunks.push(chunk));
        request.on("end", () => {
          if (code !== 200) return reject(new Error(`HTTP ${code}`));
          resolve(fromBinary(method.output, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
        });
        request.on("error", reject);
        request.end(toBinary(method.input, create(method.input, requestInit(serial))));
      }),
    close: () => session.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Driving the calls

let serialCounter = 0;
/** One call as the gateway makes it: a request id, a deadline, the MCP request's abort signal. */
function oneCall(variant) {
  const serial = serialCounter++;
  const abort = new AbortController();
  return variant.call(serial & 1, serial, { requestId: `req-${serial}`, signal: abort.signal, timeoutMs: TIMEOUT_MS });
}

async function sequential(variant, count, samples) {
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await oneCall(variant);
    samples.push(elapsedMs(start));
  }
  return count;
}

/** `callers` loops calling back to back for `ms` ms; the calls answered. */
async function concurrent(variant, callers, ms) {
  const until = performance.now() + ms;
  let done = 0;
  const loop = async () => {
    while (performance.now() < until) {
      await oneCall(variant);
      done++;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: callers }, loop));
  return { done, rate: done / (elapsedMs(start) / 1000) };
}

function startRunnerProcess(dir) {
  const args = [...process.execArgv, fileURLToPath(import.meta.url), "--serve", dir];
  if (values.before) args.push("--before", values.before);
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error("the runner process ended");
    return JSON.parse(value);
  };
  return {
    ports: () => next().then((hello) => hello.ports),
    cpu: async () => {
      child.stdin.write("cpu\n");
      return next();
    },
    stop: () => new Promise((resolve) => child.once("exit", resolve).stdin.end("exit\n")),
  };
}

const cpuMicros = (usage) => usage.user + usage.system;

async function callers(ports, secrets) {
  const made = { a: adapterCaller(product, ports.a, secrets), a1: adapterCaller(product, ports.a1, secrets) };
  if (ports.a0) made.a0 = adapterCaller(await import(pathToFileURL(values.before)), ports.a0, secrets);
  made.s = adapterCaller(product, ports.a, secrets, true);
  made.b = bareCaller(ports.b, secrets);
  made.c = muxCaller(ports.c, secrets);
  made.d = await connectCaller(ports.d, secrets);
  made.e = http2Caller(ports.e, secrets);
  const only = values.only?.split(",");
  return Object.fromEntries(Object.entries(made).filter(([name]) => !only || only.includes(name)));
}

/** One round of one variant: warm-up, sequential calls, then 8 and 64 callers; CPU of both sides. */
async function measureVariant(variant, runner, totals) {
  for (let i = 0; i < 50; i++) await oneCall(variant);
  await sequential(variant, Number(values.calls), totals.samples);
  // CPU over the loaded phases: in the sequential one, each side mostly waits for the other.
  const clientBefore = process.cpuUsage();
  const serverBefore = await runner.cpu();
  const at8 = await concurrent(variant, 8, Number(values.ms));
  const at64 = await concurrent(variant, 64, Number(values.ms));
  const calls = at8.done + at64.done;
  totals.clientCpu.push(cpuMicros(process.cpuUsage(clientBefore)) / calls);
  totals.serverCpu.push((cpuMicros(await runner.cpu()) - cpuMicros(serverBefore)) / calls);
  totals.calls += calls;
  totals.rate8.push(at8.rate);
  totals.rate64.push(at64.rate);
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];

function summarise(name, totals) {
  const latency = percentiles(totals.samples);
  return {
    variant: name,
    what: DESCRIPTIONS[name],
    "p50 µs": latency.p50 * 1000,
    "p90 µs": latency.p90 * 1000,
    "calls/s @8": median(totals.rate8),
    "calls/s @64": median(totals.rate64),
    "client CPU µs/call": median(totals.clientCpu),
    "runner CPU µs/call": median(totals.serverCpu),
    calls: totals.calls,
  };
}

/**
 * Each variant against `a`: latency from the pooled percentiles, the rest as the median of the
 * per-round ratios (each round's variants ran back to back, so a shift in the machine's load
 * between rounds cancels out).
 */
function ratios(rows, totals) {
  const base = rows.find((row) => row.variant === "a");
  if (!base) return [];
  const paired = (name, key) => median(totals[name][key].map((value, round) => value / totals.a[key][round]));
  return rows.map((row) => ({
    variant: row.variant,
    "p50 ×a": row["p50 µs"] / base["p50 µs"],
    "p90 ×a": row["p90 µs"] / base["p90 µs"],
    "calls/s @8 ×a": paired(row.variant, "rate8"),
    "calls/s @64 ×a": paired(row.variant, "rate64"),
    "client CPU ×a": paired(row.variant, "clientCpu"),
    "runner CPU ×a": paired(row.variant, "serverCpu"),
  }));
}

// ---------------------------------------------------------------------------------------------
// protobuf-es options on the real messages

function codecMessages() {
  return [
    ["PositionRequest", PositionRequestSchema, create(PositionRequestSchema, requestInit(0))],
    ["LocationsAnswer (3)", LocationsAnswerSchema, create(LocationsAnswerSchema, answerFor(0, 2))],
    ["HoverAnswer", HoverAnswerSchema, create(HoverAnswerSchema, answerFor(1, 0))],
  ];
}

/** ns per call of `run`, over `count` calls. */
function nsPer(run, count) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) run();
  return Number(process.hrtime.bigint() - start) / count;
}

/** Median ns of `plain` and `optioned`, and the median of their ratios, measured back to back. */
function pairedNs(plain, optioned, pairs, count) {
  const a = [];
  const b = [];
  const ratio = [];
  for (let pair = 0; pair < pairs; pair++) {
    const [first, second] = pair % 2 ? [optioned, plain] : [plain, optioned];
    const x = nsPer(first, count);
    const y = nsPer(second, count);
    const [p, o] = pair % 2 ? [y, x] : [x, y];
    a.push(p);
    b.push(o);
    ratio.push(o / p);
  }
  return [median(a), median(b), median(ratio).toFixed(2)];
}

function codecTable(rounds) {
  const rows = [];
  const [pairs, count] = [rounds * 6, 500];
  const writeOff = { writeUnknownFields: false };
  const readOff = { readUnknownFields: false };
  for (const [name, schema, message] of codecMessages()) {
    const bytes = toBinary(schema, message);
    const encode = () => toBinary(schema, message);
    const decode = () => fromBinary(schema, bytes);
    nsPer(encode, 5 * count);
    nsPer(decode, 5 * count);
    const [enc, encOff, encRatio] = pairedNs(encode, () => toBinary(schema, message, writeOff), pairs, count);
    const [dec, decOff, decRatio] = pairedNs(decode, () => fromBinary(schema, bytes, readOff), pairs, count);
    rows.push({
      message: name,
      bytes: bytes.length,
      "encode ns": enc,
      "write off ns": encOff,
      "write off ×": encRatio,
      "decode ns": dec,
      "read off ns": decOff,
      "read off ×": decRatio,
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-bench-transport-"));
  const key = randomBytes(32).toString("base64url");
  writeFileSync(join(dir, "gateway.key"), key);
  writeFileSync(join(dir, "runner.secret"), product.deriveRunnerSecret(key, product.runnerSecretSubject(RUNNER_ID)));
  const secrets = readSecrets(dir);
  const runner = startRunnerProcess(dir);
  const variants = await callers(await runner.ports(), secrets);
  const names = Object.keys(variants);
  const totals = Object.fromEntries(
    names.map((name) => [name, { samples: [], rate8: [], rate64: [], clientCpu: [], serverCpu: [], calls: 0 }]),
  );
  const rounds = Number(values.rounds);
  // Unrecorded: every variant's code compiled and optimised before the first measured round.
  for (const name of names) await concurrent(variants[name], 64, Number(values.ms));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      await measureVariant(variants[name], runner, totals[name]);
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  const rows = names.map((name) => summarise(name, totals[name]));
  printTable(
    `Gateway → runner call, ${rounds} rounds, variants interleaved (runner in a child process)`,
    Object.keys(rows[0]),
    rows,
    1,
  );
  const relative = ratios(rows, totals);
  if (relative.length)
    printTable(
      "Ratios against a (same run; <1 is faster / cheaper, >1 more calls/s)",
      Object.keys(relative[0]),
      relative,
    );
  const codec = values.codec === "0" ? [] : codecTable(rounds);
  if (codec.length)
    printTable("protobuf-es binary options on the real messages (ns per message)", Object.keys(codec[0]), codec, 0);
  for (const variant of Object.values(variants)) variant.close();
  await runner.stop();
  rmSync(dir, { recursive: true, force: true });
  const perRound = Object.fromEntries(names.map((name) => [name, { ...totals[name], samples: undefined }]));
  writeResult("runnerTransport", {
    rounds,
    calls: Number(values.calls),
    ms: Number(values.ms),
    rows,
    ratios: relative,
    perRound,
    codec,
  });
}

if (values.serve) await serve(values.serve);
else await main();
