import { create } from "@bufbuild/protobuf";
import { GrpcStatus, Metadata, type ServiceError } from "@lspmesh/grpc";
import { SearchTextAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { identifierAt, noLanguageServer, textSearchStatus, wholeWordPattern } from "./textFallback.js";

test("the identifier at a code-point column, also just after it; none on spaces, symbols and numbers", () => {
  const line = "  const naïve = grüße($x, 42);\n";
  expect(identifierAt(line, 9)).toBe("naïve");
  expect(identifierAt(line, 14)).toBe("naïve"); // the column after the word
  expect(identifierAt(line, 17)).toBe("grüße");
  expect(identifierAt(line, 23)).toBe("$x");
  expect(identifierAt(line, 1)).toBeUndefined();
  expect(identifierAt(line, 27)).toBeUndefined();
  expect(identifierAt(line, 99)).toBeUndefined();
});

test("whole-word patterns escape the name and leave \\b out beside non-word characters", () => {
  expect(wholeWordPattern("build_all")).toBe("\\bbuild_all\\b");
  expect(wholeWordPattern("$scope")).toBe("\\$scope\\b");
  expect(wholeWordPattern("a.b")).toBe("\\ba\\.b\\b");
});

test("NO_LANGUAGE_SERVER from routing and from the runner's status; nothing else", () => {
  expect(noLanguageServer(new GatewayError("NO_LANGUAGE_SERVER", "no server"))?.code).toBe("NO_LANGUAGE_SERVER");
  const status = Object.assign(new Error("9 FAILED_PRECONDITION: not installed"), {
    code: GrpcStatus.FAILED_PRECONDITION,
    details: "the ruby language server is not installed on this runner",
    metadata: new Metadata(),
  }) as ServiceError;
  expect(noLanguageServer(status)?.message).toBe("the ruby language server is not installed on this runner");
  expect(noLanguageServer(new GatewayError("TIMEOUT", "slow"))).toBeUndefined();
  expect(noLanguageServer(new Error("bug"))).toBeUndefined();
});

test("text answers are labelled partial, ripgrep, with the runner's own note after ours", () => {
  const answer = create(SearchTextAnswerSchema, { note: "some files could not be searched" });
  expect(textSearchStatus({ id: "ruby", label: "ruby" }, "build", answer)).toEqual({
    state: "ready",
    partial: true,
    language: "ruby",
    server: "ripgrep (text search)",
    note: "no language server for ruby here: text matches of build (ripgrep), not semantic results; some files could not be searched",
  });
});
