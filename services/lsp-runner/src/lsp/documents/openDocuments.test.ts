import { describe, expect, test } from "vitest";
import { OpenDocuments } from "./openDocuments.js";

describe("OpenDocuments", () => {
  test("past the cap the least recently used documents are taken, and reopen with a higher version", () => {
    const documents = new OpenDocuments(2);
    documents.open("file:///a", "typescript", "a", 1);
    documents.open("file:///b", "typescript", "b", 2);
    documents.use("file:///a");
    documents.open("file:///c", "typescript", "c", 3);
    expect(documents.takeOverflow().map((d) => d.uri)).toEqual(["file:///b"]);
    expect(documents.size).toBe(2);
    expect(documents.isClosed("file:///b")).toBe(true);
    expect(documents.peek("file:///b")).toBeUndefined();

    const reopened = documents.open("file:///b", "typescript", "b2", 4);
    expect(reopened.version).toBe(2);
    expect(documents.isClosed("file:///b")).toBe(false);
    expect(documents.takeOverflow().map((d) => d.uri)).toEqual(["file:///a"]);
  });

  test("at or under the cap nothing is taken", () => {
    const documents = new OpenDocuments(2);
    documents.open("file:///a", "typescript", "a", 1);
    expect(documents.takeOverflow()).toEqual([]);
  });
});
