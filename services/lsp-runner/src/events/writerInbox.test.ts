import { expect, test } from "vitest";
import { isWriterInbox } from "./natsEventBus.js";

test("a runner answers file events only into a writer's own inbox, never a subject the sender chose", () => {
  expect(isWriterInbox("_INBOX_writer-acme.AbC123.1", "acme")).toBe(true);
  expect(isWriterInbox("_INBOX.AbC123.1", "acme")).toBe(true);
  expect(isWriterInbox("$KV.lspmesh-runners.r2", "acme")).toBe(false);
  expect(isWriterInbox("$JS.API.STREAM.PURGE.LSPMESH_DIAG", "acme")).toBe(false);
  expect(isWriterInbox("_INBOX_writer-globex.x", "acme")).toBe(false);
  expect(isWriterInbox("_INBOX_writer-acme", "acme")).toBe(false);
  expect(isWriterInbox("_INBOX_writer-acmeX.y", "acme")).toBe(false);
});
