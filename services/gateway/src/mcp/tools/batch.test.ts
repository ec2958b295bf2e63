import { expect, test } from "vitest";
import { fakeToolCall } from "../toolSupport/fakeToolCall.js";
import { batchTool } from "./batch.js";
import { readFileTool } from "./readFile.js";

test("an unknown tool and a nested batch fail on their own, each error naming the fix", async () => {
  const batch = batchTool(() => [readFileTool, batch]);
  const answer = await batch.invoke(
    {
      queries: [
        { tool: "nosuchtool", arguments: {} },
        { tool: "batch", arguments: { queries: [] } },
      ],
    },
    fakeToolCall({}),
  );
  expect(answer.structured).toMatchObject({
    failed: 2,
    results: [
      {
        tool: "nosuchtool",
        ok: false,
        error: {
          code: "INVALID_ARGUMENT",
          message: expect.stringMatching(/^unknown tool 'nosuchtool'; batch takes read tools/),
        },
      },
      {
        tool: "batch",
        ok: false,
        error: { code: "INVALID_ARGUMENT", message: expect.stringMatching(/^'batch' cannot be batched/) },
      },
    ],
  });
});
