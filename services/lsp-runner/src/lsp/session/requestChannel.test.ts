import { describe, expect, it } from "vitest";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import { CancellationToken } from "vscode-languageserver-protocol";
import type { LanguageServerConfig } from "../languages/languageServerConfig.js";
import { RequestChannel } from "./requestChannel.js";
import { FailureRecord } from "./sessionFailure.js";

/** A channel over a connection that never answers, recording what each request was sent with. */
function channelFor(language: Partial<LanguageServerConfig>) {
  const sent: { method: string; args: unknown[] }[] = [];
  const connection = {
    sendRequest: (method: string, ...args: unknown[]) => {
      sent.push({ method, args });
      return new Promise(() => {});
    },
  } as unknown as MessageConnection;
  const channel = new RequestChannel({
    connection,
    language: { id: "python", extensions: {}, command: "x", args: [], ...language },
    root: "/ws",
    health: {
      failures: new FailureRecord({ languageId: "python", isInitialized: () => true }),
      probeTimeoutMs: 1000,
      busyForMs: undefined,
      heardFrom: () => {},
      afterTimeout: () => {},
    },
    onStart: () => {},
    onEnd: () => {},
  });
  return { channel, sent };
}

describe("RequestChannel cancellation", () => {
  it("tells the server to cancel a request the caller gave up on", async () => {
    const { channel, sent } = channelFor({});
    const caller = new AbortController();
    const answer = channel.request("textDocument/references", { a: 1 }, caller.signal);
    caller.abort();
    await expect(answer).rejects.toMatchObject({ code: "TIMEOUT" });
    const token = sent[0]?.args[1];
    expect(CancellationToken.is(token) && token.isCancellationRequested).toBe(true);
  });

  it("never cancels an uncancelled method (pyright's references): it stops waiting, the server finishes", async () => {
    const { channel, sent } = channelFor({ uncancelledMethods: ["textDocument/references"] });
    const caller = new AbortController();
    const answer = channel.request("textDocument/references", { a: 1 }, caller.signal);
    caller.abort();
    await expect(answer).rejects.toMatchObject({ code: "TIMEOUT", message: expect.stringContaining("cancelled") });
    // Only the params: no token, so vscode-jsonrpc never sends $/cancelRequest for it.
    expect(sent).toEqual([{ method: "textDocument/references", args: [{ a: 1 }] }]);
    // Other methods of that server are cancelled as usual.
    const hover = new AbortController();
    const hoverAnswer = channel.request("textDocument/hover", {}, hover.signal);
    hover.abort();
    await expect(hoverAnswer).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(CancellationToken.is(sent[1]?.args[1])).toBe(true);
  });

  it("the built-in python server does not cancel references", async () => {
    const { pythonLanguage } = await import("../languages/builtinLanguages.js");
    expect(pythonLanguage().uncancelledMethods).toEqual(["textDocument/references"]);
  });
});
