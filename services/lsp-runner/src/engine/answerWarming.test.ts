import { afterEach, describe, expect, it, vi } from "vitest";
import { AnswerCache, type ServerAnswer } from "./answerCache.js";
import { answerWarmingSetting, DEFAULT_WARMING } from "./answerWarming.js";

const DEFINITION = "textDocument/definition";
const READ_ONLY: ReadonlySet<string> = new Set([DEFINITION]);
const at = (line: number) => ({ textDocument: { uri: "file:///w/a.ts" }, position: { line, character: 0 } });

interface FakeSession {
  contentEpoch: number;
  contentChanges: number;
  state: string;
  isAlive: boolean;
  isBusy: boolean;
}
const session = (): FakeSession => ({
  contentEpoch: 0,
  contentChanges: 0,
  state: "ready",
  isAlive: true,
  isBusy: false,
});

/** A server answering "<line>@<epoch>" after `delayMs`, recording what it was asked and what was cancelled. */
function server(s: FakeSession, delayMs = 1) {
  const asked: number[] = [];
  const cancelled: number[] = [];
  const ask =
    (line: number) =>
    (signal: AbortSignal | undefined): Promise<ServerAnswer<string>> => {
      asked.push(line);
      const epoch = s.contentEpoch;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ value: `${line}@${epoch}`, askedWhileReady: true }), delayMs);
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          cancelled.push(line);
          reject(new Error("cancelled"));
        });
      });
    };
  return { asked, cancelled, ask };
}

/** Moves the epoch the way a session does (and tells the cache, as the runner core does). */
function move(cache: AnswerCache, s: FakeSession, change: "opened" | "changed") {
  s.contentEpoch++;
  if (change === "changed") s.contentChanges++;
  cache.sessionEvent({ type: "content", session: s });
}

const settle = async (cache: AnswerCache, s: FakeSession) => {
  await vi.waitFor(() => expect(cache.warming.of(s)?.active).toBe(false), { timeout: 2000, interval: 5 });
};

afterEach(() => vi.useRealTimers());

describe("AnswerWarming", () => {
  it("asks questions again after documents were opened, so that the second ask is a hit", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY, { maxAnswers: 10, idleMs: 1 });
    const s = session();
    const srv = server(s);
    for (const line of [1, 2, 3]) await cache.answer(s, DEFINITION, at(line), srv.ask(line));
    move(cache, s, "opened");
    await settle(cache, s);
    expect(srv.asked).toEqual([1, 2, 3, 1, 2, 3]);
    expect(cache.warming.counts).toEqual({ asked: 3, stored: 3, dropped: 0 });
    const before = { ...cache.counts };
    for (const line of [1, 2, 3]) expect(await cache.answer(s, DEFINITION, at(line), srv.ask(line))).toBe(`${line}@1`);
    expect(cache.counts.hit - before.hit).toBe(3);
  });

  it("never asks again a method the server must not be told to cancel", async () => {
    const references = "textDocument/references";
    const cache = new AnswerCache(undefined, new Set([DEFINITION, references]), { maxAnswers: 10, idleMs: 1 });
    const s = { ...session(), language: { uncancelledMethods: [references] } };
    const srv = server(s);
    await cache.answer(s, references, at(1), srv.ask(1));
    await cache.answer(s, DEFINITION, at(2), srv.ask(2));
    move(cache, s, "opened");
    await settle(cache, s);
    expect(srv.asked).toEqual([1, 2, 2]);
    expect(cache.warming.counts.asked).toBe(1);
  });

  it("forgets its questions on a real change, and never keeps an answer for an epoch gone by", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY, { maxAnswers: 10, idleMs: 1 });
    const s = session();
    const srv = server(s, 200);
    await cache.answer(s, DEFINITION, at(1), srv.ask(1));
    move(cache, s, "opened");
    // The re-ask is under way; a document changes meanwhile.
    await vi.waitFor(() => expect(srv.asked).toEqual([1, 1]), { interval: 1 });
    move(cache, s, "changed");
    await settle(cache, s);
    expect(srv.cancelled).toEqual([1]);
    expect(srv.asked).toEqual([1, 1]);
    expect(cache.warming.counts.stored).toBe(0);
    // The next ask goes to the server, and answers for the new content.
    expect(await cache.answer(s, DEFINITION, at(1), srv.ask(1))).toBe("1@2");
  });

  it("gives way to a caller: a re-ask of another question is cancelled, the same question is joined", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY, { maxAnswers: 10, idleMs: 1 });
    const s = session();
    const srv = server(s, 200);
    await cache.answer(s, DEFINITION, at(1), srv.ask(1));
    await cache.answer(s, DEFINITION, at(2), srv.ask(2));
    move(cache, s, "opened");
    await vi.waitFor(() => expect(srv.asked).toEqual([1, 2, 1]), { interval: 1 });
    // Another question: the re-ask of 1 is cancelled at once.
    const other = cache.answer(s, DEFINITION, at(3), srv.ask(3));
    expect(srv.cancelled).toEqual([1]);
    await other;
    // Warming resumes once the caller is done; then the caller asks what is being re-asked.
    await vi.waitFor(() => expect(srv.asked.length).toBe(5), { interval: 1 });
    const reasked = srv.asked[4]!;
    const before = { ...cache.counts };
    expect(await cache.answer(s, DEFINITION, at(reasked), srv.ask(reasked))).toBe(`${reasked}@1`);
    expect(cache.counts.shared - before.shared).toBe(1);
    await settle(cache, s);
  });

  it("waits while the session is busy or not ready, and stops for good when it closes", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY, { maxAnswers: 10, idleMs: 1 });
    const s = session();
    const srv = server(s);
    await cache.answer(s, DEFINITION, at(1), srv.ask(1));
    s.isBusy = true;
    move(cache, s, "opened");
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(srv.asked).toEqual([1]);
    s.isBusy = false;
    s.state = "indexing";
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(srv.asked).toEqual([1]);
    cache.sessionEvent({ type: "closed", session: s });
    cache.sessionEvent({ type: "closed", session: s });
    s.state = "ready";
    move(cache, s, "opened");
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(srv.asked).toEqual([1]);
    expect(cache.warming.of(s)?.active).toBe(false);
  });

  it("leaves no timer behind once a closed session is looked at", () => {
    vi.useFakeTimers();
    const cache = new AnswerCache(undefined, READ_ONLY, { maxAnswers: 10, idleMs: 1 });
    const s = session();
    const warming = cache.warming.of(s)!;
    warming.remember("k", async () => "stored");
    s.isAlive = false;
    warming.contentMoved();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(5);
    expect(vi.getTimerCount()).toBe(0);
    expect(warming.size).toBe(0);
  });

  it("keeps only the latest maxAnswers questions, and is off with the cache or at 0", async () => {
    const cache = new AnswerCache(undefined, READ_ONLY, { maxAnswers: 2, idleMs: 1 });
    const s = session();
    const srv = server(s);
    for (const line of [1, 2, 3]) await cache.answer(s, DEFINITION, at(line), srv.ask(line));
    expect(cache.warming.of(s)?.size).toBe(2);
    move(cache, s, "opened");
    await settle(cache, s);
    expect(srv.asked).toEqual([1, 2, 3, 2, 3]);

    expect(new AnswerCache(0, READ_ONLY).warming.enabled).toBe(false);
    expect(new AnswerCache(undefined, READ_ONLY, { maxAnswers: 0, idleMs: 1 }).warming.of(s)).toBeUndefined();
  });

  it("reads LSPMESH_ANSWER_WARMING", () => {
    expect(answerWarmingSetting({})).toEqual(DEFAULT_WARMING);
    expect(answerWarmingSetting({ LSPMESH_ANSWER_WARMING: "off" }).maxAnswers).toBe(0);
    expect(answerWarmingSetting({ LSPMESH_ANSWER_WARMING: "0" }).maxAnswers).toBe(0);
    expect(answerWarmingSetting({ LSPMESH_ANSWER_WARMING: "64" }).maxAnswers).toBe(64);
    expect(() => answerWarmingSetting({ LSPMESH_ANSWER_WARMING: "-1" })).toThrow(/LSPMESH_ANSWER_WARMING/);
  });
});
