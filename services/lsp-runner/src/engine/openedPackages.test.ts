import { expect, test } from "vitest";
import { OpenDocument } from "../lsp/documents/openDocument.js";
import { DiagnosticsStore } from "../lsp/session/diagnosticsStore.js";
import { openedDocumentsChecked } from "./openedPackages.js";

function host() {
  const diagnostics = new DiagnosticsStore();
  const documents: OpenDocument[] = [];
  const open = (uri: string) => {
    const document = new OpenDocument(uri, "go", "package main\n", 1, diagnostics.mark());
    documents.push(document);
    return document;
  };
  return { diagnostics, open, openDocuments: () => documents };
}

test("waits for the first diagnostics of a document opened since (gopls has loaded its package then)", async () => {
  const session = host();
  const opened = session.open("file:///w/_examples/hello-world/main.go");
  setTimeout(() => session.diagnostics.record(opened.uri, [], 1, opened.hash), 50);
  const started = Date.now();
  expect(await openedDocumentsChecked(session, 2_000)).toBe(true);
  expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  expect(Date.now() - started).toBeLessThan(1_500);
});

test("does not wait for documents with diagnostics newer than their content", async () => {
  const session = host();
  const opened = session.open("file:///w/chi.go");
  session.diagnostics.record(opened.uri, [], 1, opened.hash);
  const started = Date.now();
  expect(await openedDocumentsChecked(session, 2_000)).toBe(true);
  expect(Date.now() - started).toBeLessThan(100);
});

test("a document the server never reports on costs one bounded wait, not one per question", async () => {
  const session = host();
  session.open("file:///w/ignored_windows.go");
  expect(await openedDocumentsChecked(session, 100)).toBe(false);
  const started = Date.now();
  expect(await openedDocumentsChecked(session, 2_000)).toBe(true);
  expect(Date.now() - started).toBeLessThan(100);
});
