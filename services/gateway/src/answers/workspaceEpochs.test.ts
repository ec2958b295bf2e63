import type { EpochMessage } from "@lspmesh/events";
import { afterEach, describe, expect, it } from "vitest";
import { type EpochSource, WorkspaceEpochs } from "./workspaceEpochs.js";

/** A source whose announcements, flushes and connection the test drives. */
class ScriptedSource implements EpochSource {
  deliver: (message: EpochMessage) => void = () => {};
  connection: (connected: boolean) => void = () => {};
  readonly flushes: Array<{ resolve(): void; reject(error: Error): void }> = [];
  closed = 0;

  subscribe(onMessage: (message: EpochMessage) => void) {
    this.deliver = onMessage;
    return { close: () => {} };
  }
  flush(): Promise<void> {
    return new Promise((resolve, reject) => this.flushes.push({ resolve, reject }));
  }
  onConnectionChange(listener: (connected: boolean) => void) {
    this.connection = listener;
    return { close: () => {} };
  }
  async close(): Promise<void> {
    this.closed++;
  }
  announce(tenant: string, workspace: string, runner = "r1"): void {
    this.deliver({ v: 1, tenant, workspace, language: "typescript", runner, at: Date.now() });
  }
}

describe("WorkspaceEpochs", () => {
  let epochs: WorkspaceEpochs | undefined;
  afterEach(async () => {
    await epochs?.close();
  });

  it("knows a workspace once a runner announced for it, and moves its version on every announcement", () => {
    const source = new ScriptedSource();
    epochs = new WorkspaceEpochs(source);
    expect(epochs.version("acme", "web")).toBeUndefined();
    source.announce("acme", "web");
    const first = epochs.version("acme", "web");
    expect(first).toBeDefined();
    expect(epochs.heardFrom("acme", "web", "r1")).toBe(true);
    expect(epochs.heardFrom("acme", "web", "r2")).toBe(false);
    source.announce("acme", "web", "r2");
    expect(epochs.version("acme", "web")).not.toBe(first);
    expect(epochs.heardFrom("acme", "web", "r2")).toBe(true);
    // Another workspace, another tenant: untouched.
    const acme = epochs.version("acme", "web");
    source.announce("globex", "web");
    source.announce("acme", "api");
    expect(epochs.version("acme", "web")).toBe(acme);
  });

  it("moves a workspace on invalidate, and every workspace when the connection drops or comes back", () => {
    const source = new ScriptedSource();
    epochs = new WorkspaceEpochs(source);
    source.announce("acme", "web");
    source.announce("acme", "api");
    const web = epochs.version("acme", "web");
    const api = epochs.version("acme", "api");
    epochs.invalidate("acme", "web");
    expect(epochs.version("acme", "web")).not.toBe(web);
    expect(epochs.version("acme", "api")).toBe(api);
    source.connection(false);
    expect(epochs.enabled).toBe(false);
    expect(epochs.version("acme", "api")).not.toBe(api);
    const whileAway = epochs.version("acme", "api");
    source.connection(true);
    expect(epochs.enabled).toBe(true);
    expect(epochs.version("acme", "api")).not.toBe(whileAway);
  });

  it("ignores messages that are not announcements", () => {
    const source = new ScriptedSource();
    epochs = new WorkspaceEpochs(source);
    source.deliver({ v: 1 } as unknown as EpochMessage);
    source.deliver(null as unknown as EpochMessage);
    expect(epochs.version("undefined", "undefined")).toBeUndefined();
  });

  it("shares a flush among callers, but never one that started before a caller arrived", async () => {
    const source = new ScriptedSource();
    epochs = new WorkspaceEpochs(source);
    const first = epochs.caughtUp();
    const joinsFirst = epochs.caughtUp(); // arrived while the first flush runs: needs the next one
    expect(source.flushes).toHaveLength(1);
    const alsoSecond = epochs.caughtUp();
    expect(source.flushes).toHaveLength(1);
    source.flushes[0]!.resolve();
    await expect(first).resolves.toBe(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(source.flushes).toHaveLength(2);
    source.flushes[1]!.resolve();
    await expect(joinsFirst).resolves.toBe(true);
    await expect(alsoSecond).resolves.toBe(true);
    // A failed flush: cannot tell, so the caller asks the runner.
    const failing = epochs.caughtUp();
    source.flushes[2]!.reject(new Error("timed out"));
    await expect(failing).resolves.toBe(false);
  });

  it("is not caught up while disconnected, and forgets the oldest workspaces past its bound", async () => {
    const source = new ScriptedSource();
    epochs = new WorkspaceEpochs(source, 2);
    source.connection(false);
    await expect(epochs.caughtUp()).resolves.toBe(false);
    source.announce("acme", "a");
    source.announce("acme", "b");
    source.announce("acme", "c");
    expect(epochs.version("acme", "a")).toBeUndefined();
    expect(epochs.version("acme", "c")).toBeDefined();
  });

  it("closes its source once", async () => {
    const source = new ScriptedSource();
    const own = new WorkspaceEpochs(source);
    await own.close();
    await own.close();
    expect(source.closed).toBe(1);
    expect(own.enabled).toBe(false);
  });
});
