import { create } from "@bufbuild/protobuf";
import { ServerState, WorkspaceStatusAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { languagesFrom, workspaceStatusAnswer } from "./workspaceStatus.js";

test("per language: state, server, progress, restarts and last error", () => {
  const languages = languagesFrom([
    create(WorkspaceStatusAnswerSchema, {
      languages: [
        {
          language: "typescript",
          state: ServerState.INDEXING,
          server: "tsserver 5.9",
          progress: "120/900",
          openDocuments: 2,
        },
        { language: "python", state: ServerState.FAILED, server: "pyright", lastError: "exited with 1", restarts: 3 },
      ],
    }),
    // After a failover the same language may answer from two runners: the one further along wins.
    create(WorkspaceStatusAnswerSchema, {
      languages: [{ language: "typescript", state: ServerState.READY, server: "tsserver 5.9" }],
    }),
  ]);
  expect(languages).toEqual([
    {
      language: "python",
      state: "failed",
      server: "pyright",
      last_error: "exited with 1",
      restarts: 3,
      open_documents: 0,
    },
    { language: "typescript", state: "ready", server: "tsserver 5.9", restarts: 0, open_documents: 0 },
  ]);
  const { text } = workspaceStatusAnswer(["api", "web"], "web", languages, []);
  expect(text).toBe(
    "Language servers of workspace 'web':\npython: failed (pyright; 3 restarts; last error: exited with 1)\ntypescript: ready (tsserver 5.9)\n\nYour workspaces (2): api, web",
  );
});

test("without a workspace: the caller's list; a workspace with no server yet says how one starts", () => {
  expect(workspaceStatusAnswer(["api", "web"], undefined, [], []).text).toBe(
    "Your workspaces (2): api, web\nGive workspace to see its language servers.",
  );
  expect(workspaceStatusAnswer([], undefined, [], []).text).toMatch(/^You have no workspaces/);
  expect(workspaceStatusAnswer(["web"], "web", [], []).text).toMatch(
    /^No language server has started for workspace 'web' yet/,
  );
});
