import { create } from "@bufbuild/protobuf";
import { RestartServerAnswerSchema, ServerState, WorkspaceStatusAnswerSchema } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { RestartLimiter } from "../../limits/restartLimiter.js";
import type { RunnerPart, ToolCall } from "../toolCall.js";
import {
  checkLanguage,
  createRestartLanguageServerTool,
  DEFAULT_WAIT_MS,
  knownLanguages,
  restartAnswer,
  restartLanguageServerTool,
} from "./restartLanguageServer.js";

const status = (state: ServerState, extra: object = {}) => ({
  state,
  language: "typescript",
  server: "typescript-language-server 5.1",
  ...extra,
});

describe("restart_language_server answers", () => {
  test("ready: says so with the restart count", () => {
    const { text, structured } = restartAnswer(
      create(RestartServerAnswerSchema, { status: status(ServerState.READY), wasRunning: true, restarts: 3 }),
      "web",
      "typescript",
    );
    expect(text).toBe("Restarted the typescript server of workspace 'web': ready (restart #3).");
    expect(structured).toMatchObject({
      state: "ready",
      partial: false,
      workspace: "web",
      was_running: true,
      restarts: 3,
    });
  });

  test("not ready in time, failed, or not running before: each says so", () => {
    const indexing = restartAnswer(
      create(RestartServerAnswerSchema, {
        status: status(ServerState.INDEXING, { partial: true, note: "indexing 120/900 files" }),
        wasRunning: true,
        restarts: 1,
      }),
      "web",
      "typescript",
    );
    expect(indexing.text).toBe(
      "Restarted the typescript server of workspace 'web', but it is not ready yet: indexing (indexing 120/900 files) (restart #1). Answers stay partial until it is; workspace_status shows its progress.",
    );
    expect(indexing.structured.partial).toBe(true);
    const failed = restartAnswer(
      create(RestartServerAnswerSchema, {
        status: status(ServerState.FAILED, { note: "exited with code 1" }),
        wasRunning: true,
        restarts: 2,
      }),
      "web",
      "typescript",
    );
    expect(failed.text).toMatch(
      /^Restarted the typescript server of workspace 'web', but it failed \(exited with code 1\) \(restart #2\)\./,
    );
    const started = restartAnswer(
      create(RestartServerAnswerSchema, { status: status(ServerState.READY) }),
      "web",
      "typescript",
    );
    expect(started.text).toBe("Started the typescript server of workspace 'web' (it was not running): ready.");
  });
});

describe("restart_language_server language check", () => {
  const statusPart = (languages: string[], started: string[]): RunnerPart<never> =>
    ({
      languages,
      answer: create(WorkspaceStatusAnswerSchema, { languages: started.map((language) => ({ language })) }),
    }) as unknown as RunnerPart<never>;

  test("the workspace's routed languages decide, and a wrong one is named with the valid ones", () => {
    const known = knownLanguages([statusPart(["typescript"], ["typescript"]), statusPart(["python"], [])]);
    expect(known).toEqual({ routed: ["python", "typescript"], started: ["typescript"] });
    expect(() => checkLanguage("python", "web", known)).not.toThrow();
    expect(() => checkLanguage("rust", "web", known)).toThrow(
      "workspace 'web' has no rust server; its languages: python, typescript",
    );
  });

  test("a runner that decides languages itself: started servers decide; nothing known lets the runner decide", () => {
    const known = knownLanguages([statusPart([""], ["python"])]);
    expect(known).toEqual({ routed: [], started: ["python"] });
    expect(() => checkLanguage("typescript", "web", known)).toThrow(
      /no typescript server has started .*its servers are python/,
    );
    expect(() => checkLanguage("typescript", "web", { routed: [], started: [] })).not.toThrow();
  });
});

describe("restart_language_server calls", () => {
  function fakeCall() {
    const sent: Array<{ language: string; options: object; request: Record<string, unknown> }> = [];
    const runner = {
      workspaceStatus: async () => create(WorkspaceStatusAnswerSchema, { languages: [{ language: "typescript" }] }),
      restartServer: async () =>
        create(RestartServerAnswerSchema, { status: status(ServerState.READY), wasRunning: true, restarts: 1 }),
    };
    const call = {
      workspace: async () => ({ tenant: "acme", workspace: "web" }),
      sendToWorkspace: async (_target: unknown, rpc: (r: unknown, o: object, g: string[]) => Promise<unknown>) => [
        { languages: ["typescript"], answer: await rpc(runner, {}, ["typescript"]) },
      ],
      send: async (
        _target: unknown,
        language: string,
        rpc: (r: unknown, o: object) => Promise<unknown>,
        options: object,
      ) => {
        const answer = await rpc(
          {
            restartServer: async (request: Record<string, unknown>) => {
              sent.push({ language, options, request });
              return runner.restartServer();
            },
          },
          {},
        );
        return answer;
      },
      audit: () => {},
    } as unknown as ToolCall;
    return { call, sent };
  }

  test("a write, hidden under --read-only, not destructive; sent to the language's runner with a longer deadline", async () => {
    expect(restartLanguageServerTool.writes({ language: "typescript" })).toBe(true);
    expect(restartLanguageServerTool.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    const { call, sent } = fakeCall();
    const tool = createRestartLanguageServerTool(new RestartLimiter());
    const answer = await tool.invoke({ language: "typescript", wait_ms: 20_000 }, call);
    expect(answer.text).toBe("Restarted the typescript server of workspace 'web': ready (restart #1).");
    expect(sent).toEqual([
      {
        language: "typescript",
        options: { write: true, extraMs: 20_000 },
        request: { workspace: { tenant: "acme", workspace: "web" }, language: "typescript", waitMs: 20_000 },
      },
    ]);
  });

  test("a second restart of the same server within 30 s is RATE_LIMITED and never sent", async () => {
    const { call, sent } = fakeCall();
    const tool = createRestartLanguageServerTool(new RestartLimiter());
    await tool.invoke({ language: "typescript" }, call);
    await expect(tool.invoke({ language: "typescript" }, call)).rejects.toMatchObject({
      code: "RATE_LIMITED",
      message: expect.stringMatching(
        /^the typescript server of workspace 'web' was restarted less than 30 s ago .*retry after 30 s$/,
      ),
    });
    await expect(tool.invoke({ language: "rust" }, call)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(sent).toHaveLength(1);
  });

  test("a restart whose call failed does not count: the next one is sent", async () => {
    const { call, sent } = fakeCall();
    const failing = { ...call, send: async () => Promise.reject(new GatewayError("UNAVAILABLE", "runner down")) };
    const tool = createRestartLanguageServerTool(new RestartLimiter());
    await expect(tool.invoke({ language: "typescript" }, failing as ToolCall)).rejects.toMatchObject({
      code: "UNAVAILABLE",
    });
    await tool.invoke({ language: "typescript" }, call);
    expect(sent).toHaveLength(1);
  });
});

test("the default wait leaves room under an MCP client's 60 s request timeout", () => {
  // @modelcontextprotocol/client's DEFAULT_REQUEST_TIMEOUT_MSEC: a 60 s wait answered after it.
  expect(DEFAULT_WAIT_MS).toBeLessThanOrEqual(50_000);
});
