import { Metadata } from "@grpc/grpc-js";
import { Runner } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import {
  applyInterceptors,
  callMetadataInterceptor,
  InFlightCalls,
  type Interceptor,
  type UnaryCall,
} from "./interceptors.js";

function callOf(request: unknown = {}): UnaryCall {
  return {
    method: Runner.method.hover,
    request,
    context: { metadata: new Metadata(), signal: new AbortController().signal, deadlineMs: Number.POSITIVE_INFINITY },
  };
}

/** Records when it sees the call and when it sees the outcome. */
function recording(name: string, seen: string[]): Interceptor {
  return (next) => async (call) => {
    seen.push(`${name} in`);
    try {
      return await next(call);
    } finally {
      seen.push(`${name} out`);
    }
  };
}

describe("applyInterceptors", () => {
  test("the first interceptor is the outermost: it sees the call first and the outcome last", async () => {
    const seen: string[] = [];
    const handle = applyInterceptors([recording("a", seen), recording("b", seen)], async () => {
      seen.push("handler");
      return "answer";
    });
    await expect(handle(callOf())).resolves.toBe("answer");
    expect(seen).toEqual(["a in", "b in", "handler", "b out", "a out"]);
  });

  test("without interceptors the handler alone runs", async () => {
    const handle = applyInterceptors([], async (call) => call.request);
    await expect(handle(callOf("request"))).resolves.toBe("request");
  });

  test("an interceptor that answers without next short-circuits: inner ones and the handler never run", async () => {
    const seen: string[] = [];
    const refuse: Interceptor = () => async () => {
      throw new Error("refused");
    };
    const handle = applyInterceptors([recording("outer", seen), refuse, recording("inner", seen)], async () => {
      seen.push("handler");
    });
    await expect(handle(callOf())).rejects.toThrow("refused");
    expect(seen).toEqual(["outer in", "outer out"]);
  });

  test("a handler's failure passes through every interceptor unchanged", async () => {
    const failure = new Error("the handler failed");
    const seenErrors: unknown[] = [];
    const observe: Interceptor = (next) => async (call) => {
      try {
        return await next(call);
      } catch (error) {
        seenErrors.push(error);
        throw error;
      }
    };
    const handle = applyInterceptors([observe, observe], async () => {
      throw failure;
    });
    await expect(handle(callOf())).rejects.toBe(failure);
    expect(seenErrors).toEqual([failure, failure]);
  });

  test("an interceptor may replace the call the next one sees", async () => {
    const replace: Interceptor = (next) => (call) => next({ ...call, request: "replaced" });
    const handle = applyInterceptors([replace], async (call) => call.request);
    await expect(handle(callOf("original"))).resolves.toBe("replaced");
  });

  test("interceptors see the method by its wire and code names", async () => {
    const names: string[] = [];
    const handle = applyInterceptors(
      [
        (next) => (call) => {
          names.push(call.method.name, call.method.localName);
          return next(call);
        },
      ],
      async () => undefined,
    );
    await handle(callOf());
    expect(names).toEqual(["Hover", "hover"]);
  });
});

describe("callMetadataInterceptor", () => {
  test("adds its entries to each call's metadata, reading them at every call", async () => {
    let secret = "one";
    const handle = applyInterceptors(
      [callMetadataInterceptor(() => ({ authorization: `Bearer ${secret}` }))],
      async (call) => call.context.metadata.get("authorization"),
    );
    await expect(handle(callOf())).resolves.toEqual(["Bearer one"]);
    secret = "two";
    await expect(handle(callOf())).resolves.toEqual(["Bearer two"]);
  });

  test("no entries leave the metadata as it was", async () => {
    const handle = applyInterceptors([callMetadataInterceptor(() => undefined)], async (call) =>
      call.context.metadata.getMap(),
    );
    await expect(handle(callOf())).resolves.toEqual({});
  });
});

describe("InFlightCalls", () => {
  test("counts calls from their start to their end, answered or failed", async () => {
    const inFlight = new InFlightCalls();
    let finish: (value: unknown) => void = () => {};
    let fail: (error: unknown) => void = () => {};
    const answered = applyInterceptors(
      [inFlight.interceptor],
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
    )(callOf());
    const failed = applyInterceptors(
      [inFlight.interceptor],
      () =>
        new Promise((_resolve, reject) => {
          fail = reject;
        }),
    )(callOf()).catch(() => {});
    expect(inFlight.size).toBe(2);
    const settled = inFlight.settled(10_000);
    finish("answer");
    fail(new Error("failed"));
    await settled;
    await Promise.all([answered, failed]);
    expect(inFlight.size).toBe(0);
  });

  test("settled gives up after the grace period", async () => {
    const inFlight = new InFlightCalls();
    void applyInterceptors([inFlight.interceptor], () => new Promise(() => {}))(callOf());
    const started = Date.now();
    await inFlight.settled(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(inFlight.size).toBe(1);
  });

  test("settled with nothing under way returns at once", async () => {
    await new InFlightCalls().settled(60_000);
  });
});
