import { describe, expect, it } from "vitest";
import { ErrorCodes } from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { withShownFailure } from "./shownFailure.js";

const SHOWN = "the go server shows a failure: Error loading workspace: go.mod: no such file";

describe("withShownFailure", () => {
  it("appends the shown failure to a failed or unsupported request", () => {
    const failed = new RunnerError("SERVER_FAILED", "the go language server failed textDocument/definition: boom");
    expect((withShownFailure(failed, SHOWN) as RunnerError).message).toBe(`${failed.message} (${SHOWN})`);
    const noPackage = new RunnerError("UNSUPPORTED", "no package holding this file", { cause: { code: -32803 } });
    const decorated = withShownFailure(noPackage, SHOWN) as RunnerError;
    expect([decorated.code, decorated.message.endsWith(`(${SHOWN})`)]).toEqual(["UNSUPPORTED", true]);
  });

  it("leaves a method the server does not implement, other codes and servers without a failure alone", () => {
    const unknownMethod = new RunnerError("UNSUPPORTED", "the go language server does not support x", {
      cause: { code: ErrorCodes.MethodNotFound, message: "method not found" },
    });
    expect(withShownFailure(unknownMethod, SHOWN)).toBe(unknownMethod);
    const timeout = new RunnerError("TIMEOUT", "did not answer");
    expect(withShownFailure(timeout, SHOWN)).toBe(timeout);
    const failed = new RunnerError("SERVER_FAILED", "failed");
    expect(withShownFailure(failed, undefined)).toBe(failed);
    const plain = new Error("x");
    expect(withShownFailure(plain, SHOWN)).toBe(plain);
  });
});
