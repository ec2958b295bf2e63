import { describe, expect, test } from "vitest";
import { SharedCall } from "./sharedCall.js";

/** A call whose answer the test gives, recording whether it was cancelled. */
function pendingCall() {
  let answer!: (value: string) => void;
  let signal!: AbortSignal;
  const call = new SharedCall<string>(
    (s) => {
      signal = s;
      return new Promise<string>((resolve) => {
        answer = resolve;
      });
    },
    { cancelled: () => new Error("gave up"), abandoned: () => abandoned.push("abandoned") },
  );
  const abandoned: string[] = [];
  return { call, answer: (value: string) => answer(value), signal: () => signal, abandoned };
}

describe("SharedCall", () => {
  test("every joiner gets the one answer", async () => {
    const { call, answer } = pendingCall();
    const first = call.join();
    const second = call.join(new AbortController().signal);
    answer("42");
    expect(await Promise.all([first, second])).toEqual(["42", "42"]);
  });

  test("a joiner giving up gets its error at once; the call goes on for the others", async () => {
    const { call, answer, signal, abandoned } = pendingCall();
    const patient = call.join(new AbortController().signal);
    const impatient = new AbortController();
    const gaveUp = call.join(impatient.signal);
    impatient.abort();
    await expect(gaveUp).rejects.toThrow("gave up");
    expect(signal().aborted).toBe(false);
    expect(abandoned).toEqual([]);
    answer("done");
    expect(await patient).toBe("done");
  });

  test("cancelled once every joiner gave up, abandoned called once", async () => {
    const { call, signal, abandoned } = pendingCall();
    const callers = [new AbortController(), new AbortController()];
    const waits = callers.map((caller) => call.join(caller.signal));
    for (const caller of callers) caller.abort("bye");
    for (const wait of waits) await expect(wait).rejects.toThrow("gave up");
    expect(signal().aborted).toBe(true);
    expect(signal().reason).toBe("bye");
    expect(abandoned).toEqual(["abandoned"]);
  });

  test("a caller without a signal keeps the call alive", async () => {
    const { call, answer, signal } = pendingCall();
    const waiting = call.join();
    expect(call.abandonIfUnjoined()).toBe(false);
    answer("kept");
    expect(await waiting).toBe("kept");
    expect(signal().aborted).toBe(false);
  });

  test("nobody joined: abandonIfUnjoined cancels; an already aborted signal gives up at once", async () => {
    const unjoined = pendingCall();
    expect(unjoined.call.abandonIfUnjoined("background stopped")).toBe(true);
    expect(unjoined.signal().reason).toBe("background stopped");
    const late = pendingCall();
    await expect(late.call.join(AbortSignal.abort())).rejects.toThrow("gave up");
    expect(late.signal().aborted).toBe(true);
  });

  test("the call's error reaches every joiner", async () => {
    const call = new SharedCall<string>(() => Promise.reject(new Error("server died")), {
      cancelled: () => new Error("gave up"),
    });
    await expect(call.join()).rejects.toThrow("server died");
    await expect(call.join(new AbortController().signal)).rejects.toThrow("server died");
  });
});
