import { deletedFileMessage } from "@lspmesh/events";
import { expect, test } from "vitest";
import { renderMessageText } from "./renderMessage.js";

test("a deleted file's message says its diagnostics are cleared, not that it has no problems", () => {
  const message = deletedFileMessage("acme", "web", "src/gone.ts", Date.UTC(2026, 10, 26, 9, 30, 5));
  expect(renderMessageText(message)).toBe("09:30:05 src/gone.ts: deleted (its diagnostics are cleared)\n");
});
