import { GrpcStatus, Metadata, type ServiceError } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { isServiceError, toolErrorFromGrpc } from "./grpcErrors.js";

function serviceError(code: GrpcStatus, details: string, trailer?: string): ServiceError {
  const metadata = new Metadata();
  if (trailer) metadata.set(ERROR_CODE_TRAILER, trailer);
  return Object.assign(new Error(`${code} ${GrpcStatus[code]}: ${details}`), { code, details, metadata });
}

describe("toolErrorFromGrpc", () => {
  test.each([
    [GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"],
    [GrpcStatus.NOT_FOUND, "NOT_FOUND"],
    [GrpcStatus.DEADLINE_EXCEEDED, "TIMEOUT"],
    [GrpcStatus.UNAVAILABLE, "UNAVAILABLE"],
    [GrpcStatus.PERMISSION_DENIED, "FORBIDDEN"],
    [GrpcStatus.RESOURCE_EXHAUSTED, "RATE_LIMITED"],
    [GrpcStatus.UNIMPLEMENTED, "UNSUPPORTED"],
    [GrpcStatus.FAILED_PRECONDITION, "NO_LANGUAGE_SERVER"],
    [GrpcStatus.INTERNAL, "UNAVAILABLE"],
    [GrpcStatus.UNKNOWN, "UNAVAILABLE"],
    [GrpcStatus.CANCELLED, "UNAVAILABLE"],
    [GrpcStatus.DATA_LOSS, "UNAVAILABLE"],
  ])("gRPC status %i without a trailer becomes %s", (status, code) => {
    expect(toolErrorFromGrpc(serviceError(status, "something")).code).toBe(code);
  });

  test.each([
    "OUTSIDE_WORKSPACE",
    "NOT_FOUND",
    "NO_LANGUAGE_SERVER",
    "SYMBOL_NOT_FOUND",
    "SERVER_STARTING",
    "SERVER_FAILED",
    "TIMEOUT",
    "INVALID_ARGUMENT",
    "UNSUPPORTED",
  ])("the %s trailer wins over the gRPC status and keeps the runner's message", (code) => {
    const error = toolErrorFromGrpc(serviceError(GrpcStatus.FAILED_PRECONDITION, "the runner's words", code));
    expect(error.code).toBe(code);
    expect(error.message).toBe("the runner's words");
  });

  test("STALE_EDIT passes through with the runner's message", () => {
    const error = toolErrorFromGrpc(
      serviceError(GrpcStatus.ABORTED, "src/a.ts changed since the edit was computed; preview again", "STALE_EDIT"),
    );
    expect(error.code).toBe("STALE_EDIT");
    expect(error.message).toContain("preview again");
  });

  test("FILE_TOO_LARGE is an argument problem, not a rate limit", () => {
    const error = toolErrorFromGrpc(
      serviceError(GrpcStatus.RESOURCE_EXHAUSTED, "src/big.ts is larger than 4 MiB", "FILE_TOO_LARGE"),
    );
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: "src/big.ts is larger than 4 MiB" });
  });

  test("an unknown trailer value falls back to the gRPC status", () => {
    expect(toolErrorFromGrpc(serviceError(GrpcStatus.NOT_FOUND, "gone", "MADE_UP")).code).toBe("NOT_FOUND");
  });

  test("runner-written messages pass through; transport messages do not", () => {
    expect(toolErrorFromGrpc(serviceError(GrpcStatus.NOT_FOUND, "no such file: src/a.ts")).message).toBe(
      "no such file: src/a.ts",
    );
    const unreachable = toolErrorFromGrpc(
      serviceError(GrpcStatus.UNAVAILABLE, "No connection established. Last error: connect ECONNREFUSED 10.0.0.7:7421"),
    );
    expect(unreachable.message).not.toContain("10.0.0.7");
    expect(unreachable.message).toMatch(/try again/);
    const deadline = toolErrorFromGrpc(serviceError(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded after 30.002s"));
    expect(deadline.message).toMatch(/did not answer in time/);
  });

  test("internal failures never carry their details or a stack", () => {
    const error = toolErrorFromGrpc(serviceError(GrpcStatus.INTERNAL, "TypeError at /srv/runner/dist/x.js:10"));
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).not.toContain("/srv");
  });

  test("a stack trace appended to a runner message is cut off", () => {
    const details = "file is not valid UTF-8\n    at decode (/srv/runner/dist/files.js:12:5)";
    const error = toolErrorFromGrpc(serviceError(GrpcStatus.INVALID_ARGUMENT, details, "INVALID_ARGUMENT"));
    expect(error.message).toBe("file is not valid UTF-8");
  });

  test("an empty runner message gets wording that names the fix", () => {
    const error = toolErrorFromGrpc(serviceError(GrpcStatus.FAILED_PRECONDITION, ""));
    expect(error).toMatchObject({ code: "NO_LANGUAGE_SERVER", message: expect.stringMatching(/no language server/) });
  });
});

test("isServiceError tells gRPC failures from other errors", () => {
  expect(isServiceError(serviceError(GrpcStatus.NOT_FOUND, "x"))).toBe(true);
  expect(isServiceError(new Error("x"))).toBe(false);
  expect(isServiceError({ code: 5, metadata: new Metadata() })).toBe(false);
});
