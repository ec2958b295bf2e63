import { describe, expect, it } from "vitest";
import { RunnerError } from "../errors.js";
import { AnswerCache, type CacheableSession, copyJson, type ServerAnswer } from "./answerCache.js";

const ready = <R>(value: R): ServerAnswer<R> => ({ value, askedWhileReady: true });

const DEFINITION = "textDocument/definition";
/** The methods this cache may remember (the runner derives its set from its features). */
const READ_ONLY: ReadonlySet<string> = new Set([DEFINITION]);
const params = { textDocument: { uri: "file:///w/a.ts" }, position: { line: 1, character: 2 } };

function session(state = "ready"): CacheableSession & { contentEpoch: number; state: string } {
  return { contentEpoch: 0, state };
}

/** A server request that answers when told to, counting how often it was sent. */
function server() {
  const sent: Array<{ signal: AbortSignal | undefined; resolve: (value: unknown) => void }> = [];
  return {
    sent,
    ask: (signal: AbortSignal | undefined) =>
      new Promise<ServerAnswer<unknown>>((resolve) => {
        sent.push({ signal, resolve: (value) => resolve(ready(value)) });
      }),
  };
}

describe("AnswerCache", () => {
  it("answers a repeated read from memory until the session's content changes", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY);
    const s = session();
    let asked = 0;
    const ask = async () => ready([{ uri: "file:///w/b.ts", asked: ++asked }]);
    expect(await cache.answer(s, DEFINITION, params, ask)).toEqual([{ uri: "file:///w/b.ts", asked: 1 }]);
    expect(await cache.answer(s, DEFINITION, params, ask)).toEqual([{ uri: "file:///w/b.ts", asked: 1 }]);
    s.contentEpoch++;
    expect(await cache.answer(s, DEFINITION, params, ask)).toEqual([{ uri: "file:///w/b.ts", asked: 2 }]);
    expect(cache.counts).toEqual({ hit: 1, shared: 0, miss: 2 });
  });

  it("gives every caller its own copy", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY);
    const s = session();
    const first = await cache.answer(s, DEFINITION, params, async () => ready([{ line: 1 }]));
    first[0]!.line = 99;
    expect(await cache.answer(s, DEFINITION, params, async () => ready([]))).toEqual([{ line: 1 }]);
  });

  it("keeps no answer given while the server was not ready, nor one the epoch moved under", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY);
    const indexing = session();
    let asked = 0;
    const askIndexing = async () => ({ value: ++asked, askedWhileReady: false });
    await cache.answer(indexing, DEFINITION, params, askIndexing);
    expect(await cache.answer(indexing, DEFINITION, params, async () => ready(++asked))).toBe(2);
    indexing.state = "indexing";
    expect(await cache.answer(indexing, DEFINITION, params, async () => ready(++asked))).toBe(3);

    const moving = session();
    const slow = server();
    const pending = cache.answer(moving, DEFINITION, params, slow.ask);
    moving.contentEpoch++;
    slow.sent[0]!.resolve("old");
    expect(await pending).toBe("old");
    expect(await cache.answer(moving, DEFINITION, params, async () => ready("new"))).toBe("new");
  });

  it("does not remember requests that are not read-only, or other questions", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY);
    const s = session();
    let asked = 0;
    const ask = async () => ready(++asked);
    await cache.answer(s, "textDocument/rename", params, ask);
    expect(await cache.answer(s, "textDocument/rename", params, ask)).toBe(2);
    await cache.answer(s, DEFINITION, params, ask);
    expect(await cache.answer(s, DEFINITION, { ...params, position: { line: 1, character: 3 } }, ask)).toBe(4);
  });

  it("shares one server request between identical requests in flight", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY);
    const s = session();
    const slow = server();
    const calls = [1, 2, 3].map(() => cache.answer(s, DEFINITION, params, slow.ask));
    expect(slow.sent).toHaveLength(1);
    slow.sent[0]!.resolve([{ line: 7 }]);
    expect(await Promise.all(calls)).toEqual([[{ line: 7 }], [{ line: 7 }], [{ line: 7 }]]);
    expect(cache.counts).toEqual({ hit: 0, shared: 2, miss: 1 });
  });

  it("cancels a shared request only when every caller gave up", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY);
    const s = session();
    const slow = server();
    const one = new AbortController();
    const two = new AbortController();
    const first = cache.answer(s, DEFINITION, params, slow.ask, one.signal);
    const second = cache.answer(s, DEFINITION, params, slow.ask, two.signal);
    one.abort();
    await expect(first).rejects.toBeInstanceOf(RunnerError);
    expect(slow.sent[0]!.signal?.aborted).toBe(false);
    two.abort();
    await expect(second).rejects.toThrow(/cancelled by the caller/);
    expect(slow.sent[0]!.signal?.aborted).toBe(true);
  });

  it("drops the least recently used answers beyond its size", async () => {
    const cache = new AnswerCache(2, READ_ONLY);
    const s = session();
    let asked = 0;
    const ask = async () => ready(++asked);
    const at = (line: number) => ({ ...params, position: { line, character: 0 } });
    await cache.answer(s, DEFINITION, at(1), ask);
    await cache.answer(s, DEFINITION, at(2), ask);
    await cache.answer(s, DEFINITION, at(1), ask); // used: line 2 is now the oldest
    await cache.answer(s, DEFINITION, at(3), ask);
    expect(await cache.answer(s, DEFINITION, at(1), ask)).toBe(1);
    expect(await cache.answer(s, DEFINITION, at(2), ask)).toBe(4);
  });

  it("switched off (size 0), sends every request to the server", async () => {
    const cache = new AnswerCache(0, READ_ONLY);
    const s = session();
    const slow = server();
    const calls = [1, 2].map(() => cache.answer(s, DEFINITION, params, slow.ask));
    expect(slow.sent).toHaveLength(2);
    for (const sent of slow.sent) sent.resolve(1);
    await Promise.all(calls);
    expect(cache.counts).toEqual({ hit: 0, shared: 0, miss: 0 });
  });
});

describe("copyJson", () => {
  it("copies every level of a JSON value and keeps its primitives", () => {
    const answer = {
      contents: { kind: "markdown", value: "x" },
      range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } },
      tags: [1, null, true, "s", [{ deep: 1 }]],
    };
    const copy = copyJson(answer);
    expect(copy).toEqual(answer);
    copy.range.start.line = 9;
    (copy.tags[4] as Array<{ deep: number }>)[0]!.deep = 2;
    expect(answer.range.start.line).toBe(1);
    expect(answer.tags[4]).toEqual([{ deep: 1 }]);
    expect([null, 0, "", false, 3.5].map(copyJson)).toEqual([null, 0, "", false, 3.5]);
  });
});
