import type { EpochMessage } from "@lspmesh/events";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayAnswerCache, type Question } from "./gatewayAnswerCache.js";
import { type EpochSource, WorkspaceEpochs } from "./workspaceEpochs.js";

/** Announcements the test sends; flushes answer at once unless held. */
class TestSource implements EpochSource {
  deliver: (message: EpochMessage) => void = () => {};
  connection: (connected: boolean) => void = () => {};
  /** Announcements delivered just before the next flush answers (what NATS had queued for us). */
  readonly beforeNextFlush: EpochMessage[] = [];
  subscribe(onMessage: (message: EpochMessage) => void) {
    this.deliver = onMessage;
    return { close: () => {} };
  }
  async flush(): Promise<void> {
    for (const message of this.beforeNextFlush.splice(0)) this.deliver(message);
  }
  onConnectionChange(listener: (connected: boolean) => void) {
    this.connection = listener;
    return { close: () => {} };
  }
  async close(): Promise<void> {}
  announce(workspace = "web", runner = "r1"): void {
    this.deliver(message(workspace, runner));
  }
}

function message(workspace: string, runner = "r1"): EpochMessage {
  return { v: 1, tenant: "acme", workspace, language: "typescript", runner, at: Date.now() };
}

interface Answer {
  text: string;
  complete: boolean;
}

/** A question about acme/web whose runner answers `answers` in turn, counting calls. */
function question(asked: { count: number }, answers: () => Answer, extra: Partial<Question<Answer>> = {}) {
  return {
    key: "hover\n{acme web a.ts 1 1}",
    tenant: "acme",
    workspace: "web",
    runner: "r1",
    ask: async () => {
      asked.count++;
      return answers();
    },
    keep: (answer: Answer) => answer.complete,
    copy: (answer: Answer) => ({ ...answer }),
    cancelled: () => new Error("cancelled"),
    ...extra,
  } satisfies Question<Answer>;
}

describe("GatewayAnswerCache", () => {
  let epochs: WorkspaceEpochs | undefined;
  afterEach(async () => {
    await epochs?.close();
  });

  function setUp() {
    const source = new TestSource();
    epochs = new WorkspaceEpochs(source);
    return { source, cache: new GatewayAnswerCache(epochs) };
  }

  it("answers a repeated question itself until the workspace moves on", async () => {
    const { source, cache } = setUp();
    source.announce();
    const asked = { count: 0 };
    let text = "v1";
    const ask = () => cache.answer(question(asked, () => ({ text, complete: true })));
    expect((await ask()).text).toBe("v1");
    expect((await ask()).text).toBe("v1");
    expect(asked.count).toBe(1);
    text = "v2";
    source.announce();
    expect((await ask()).text).toBe("v2");
    expect(asked.count).toBe(2);
    expect(cache.counts).toEqual({ hit: 1, shared: 0, miss: 2 });
  });

  it("hears announcements queued before the call before it serves a remembered answer", async () => {
    const { source, cache } = setUp();
    source.announce();
    const asked = { count: 0 };
    let text = "v1";
    const ask = () => cache.answer(question(asked, () => ({ text, complete: true })));
    await ask();
    // An edit through another gateway: its announcement reached NATS, not yet this gateway.
    text = "v2";
    source.beforeNextFlush.push(message("web"));
    expect((await ask()).text).toBe("v2");
  });

  it("keeps no answer that is partial, from a runner never heard, about an unknown workspace, or asked across a move", async () => {
    const { source, cache } = setUp();
    const asked = { count: 0 };
    // Nothing heard about acme/web yet.
    await cache.answer(question(asked, () => ({ text: "a", complete: true })));
    await cache.answer(question(asked, () => ({ text: "a", complete: true })));
    expect(asked.count).toBe(2);
    source.announce("web", "r1");
    await cache.answer(question(asked, () => ({ text: "a", complete: false })));
    await cache.answer(question(asked, () => ({ text: "a", complete: false })));
    expect(asked.count).toBe(4);
    await cache.answer(question(asked, () => ({ text: "a", complete: true }), { runner: "r2" }));
    expect(cache.size).toBe(0);
    // The workspace moved while the question was asked: the answer may predate the move.
    await cache.answer(
      question(asked, () => {
        source.announce();
        return { text: "a", complete: true };
      }),
    );
    expect(cache.size).toBe(0);
  });

  it("remembers nothing while announcements may be missed, and forgets a workspace this gateway edited", async () => {
    const { source, cache } = setUp();
    source.announce();
    const asked = { count: 0 };
    const ask = () => cache.answer(question(asked, () => ({ text: "a", complete: true })));
    await ask();
    source.connection(false);
    await ask();
    await ask();
    expect(asked.count).toBe(3);
    source.connection(true);
    await ask();
    await ask();
    expect(asked.count).toBe(4);
    cache.forget("acme", "web");
    await ask();
    expect(asked.count).toBe(5);
  });

  it("shares one runner call among identical questions in flight, and gives each caller its own copy", async () => {
    const { source, cache } = setUp();
    source.announce();
    const asked = { count: 0 };
    let release: (answer: Answer) => void = () => {};
    const slow = question(asked, () => ({ text: "", complete: true }), {
      ask: () => {
        asked.count++;
        return new Promise<Answer>((resolve) => {
          release = resolve;
        });
      },
    });
    const first = cache.answer(slow);
    const second = cache.answer(slow);
    release({ text: "shared", complete: true });
    const [a, b] = await Promise.all([first, second]);
    expect(asked.count).toBe(1);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    a.text = "changed by a caller";
    expect((await cache.answer(slow)).text).toBe("shared");
    expect(cache.counts).toEqual({ hit: 1, shared: 1, miss: 1 });
  });

  it("cancels a shared call only once every caller gave up", async () => {
    const { source, cache } = setUp();
    source.announce();
    let cancelled = false;
    const pending = (signal: AbortSignal) =>
      new Promise<Answer>((_, reject) => {
        signal.addEventListener("abort", () => {
          cancelled = true;
          reject(new Error("aborted"));
        });
      });
    const one = new AbortController();
    const two = new AbortController();
    const asked = { count: 0 };
    const first = cache.answer(
      question(asked, () => ({ text: "", complete: true }), { ask: pending, signal: one.signal }),
    );
    const second = cache.answer(
      question(asked, () => ({ text: "", complete: true }), { ask: pending, signal: two.signal }),
    );
    one.abort();
    await expect(first).rejects.toThrow("cancelled");
    expect(cancelled).toBe(false);
    two.abort();
    await expect(second).rejects.toThrow("cancelled");
    expect(cancelled).toBe(true);
  });
});
