import { describe, expect, test } from "vitest";
import { ErrorCodes, LSPErrorCodes } from "vscode-languageserver-protocol";
import { isRetryable, sanitizeServerMessage, serverAnswerError, workspaceRelativeText } from "./serverErrors.js";

const ROOT = "/srv/workspaces/acme/web";

describe("an error a server answered with gets the code that says what to do", () => {
  test.each([
    [ErrorCodes.ServerNotInitialized, "SERVER_STARTING", /still starting; retry in a few seconds/],
    [ErrorCodes.MethodNotFound, "UNSUPPORTED", /does not support textDocument\/rename/],
    [ErrorCodes.InvalidParams, "INVALID_ARGUMENT", /refused textDocument\/rename here: nope/],
    [LSPErrorCodes.RequestFailed, "INVALID_ARGUMENT", /refused textDocument\/rename here: nope/],
    [LSPErrorCodes.ContentModified, "UNAVAILABLE", /retry shortly/],
    [ErrorCodes.InternalError, "SERVER_FAILED", /failed textDocument\/rename: nope/],
  ])("code %i → %s", (code, expected, message) => {
    const error = serverAnswerError("typescript", "textDocument/rename", { code, message: "nope" }, ROOT);
    expect(error.code).toBe(expected);
    expect(error.message).toMatch(message);
  });

  test("content modified and cancellations are retried; a server cancel that says not to is not", () => {
    expect(isRetryable({ code: LSPErrorCodes.ContentModified })).toBe(true);
    // pyright's own cancellation glitch: the same request a moment later answers.
    expect(
      isRetryable({
        code: LSPErrorCodes.RequestFailed,
        message: "Request textDocument/references failed with message: this._token.cancel is not a function",
      }),
    ).toBe(true);
    expect(isRetryable({ code: LSPErrorCodes.RequestCancelled })).toBe(true);
    expect(isRetryable({ code: LSPErrorCodes.ServerCancelled, data: { retriggerRequest: false } })).toBe(false);
    expect(isRetryable({ code: ErrorCodes.InternalError })).toBe(false);
  });
});

describe("server messages keep no host paths", () => {
  test("workspace paths become relative, others keep only their last segment", () => {
    const message =
      "Could not read /srv/workspaces/acme/web/src/a.ts or file:///srv/workspaces/acme/web/lib/b.ts " +
      "via /home/runner/.cache/typescript/7.0/node_modules/types.d.ts";
    expect(sanitizeServerMessage(message, ROOT)).toBe("Could not read src/a.ts or lib/b.ts via …/types.d.ts");
  });

  test("a diagnostic's text names workspace files as the caller does, and keeps everything else as the server wrote it", () => {
    const message = `could not import ${ROOT}/lib (no required module provides package; see file://${ROOT}/go.mod)\n\tin /usr/lib/go/src/fmt`;
    expect(workspaceRelativeText(message, ROOT)).toBe(
      "could not import lib (no required module provides package; see go.mod)\n\tin /usr/lib/go/src/fmt",
    );
    expect(workspaceRelativeText(`main module (${ROOT}) does not contain package`, ROOT)).toBe(
      "main module (.) does not contain package",
    );
    const untouched = "Type 'string' is not assignable to type 'number'.";
    expect(workspaceRelativeText(untouched, ROOT)).toBe(untouched);
  });

  test("network addresses (the runner's resolver, a proxy) are replaced", () => {
    const message = "dial tcp: lookup proxy.golang.org on 10.255.255.53:53: no such host; [fd00::1]:3128 refused";
    expect(sanitizeServerMessage(message, ROOT)).toBe(
      "dial tcp: lookup proxy.golang.org on <address>: no such host; <address> refused",
    );
  });

  test("module paths and URLs are kept whole: they name what is missing", () => {
    const message =
      'go: github.com/cpuguy83/go-md2man/v2@v2.0.6: Get "https://proxy.golang.org/github.com/cpuguy83/go-md2man/v2/@v/v2.0.6.mod": dial tcp: lookup proxy.golang.org: no such host (from /root/go/pkg/mod/cache/x.lock)';
    expect(sanitizeServerMessage(message, ROOT)).toBe(
      'go: github.com/cpuguy83/go-md2man/v2@v2.0.6: Get "https://proxy.golang.org/github.com/cpuguy83/go-md2man/v2/@v/v2.0.6.mod": dial tcp: lookup proxy.golang.org: no such host (from …/x.lock)',
    );
    expect(sanitizeServerMessage('package "github.com/spf13/cobra" has errors', ROOT)).toBe(
      'package "github.com/spf13/cobra" has errors',
    );
  });

  test("long messages are cut and blank ones named", () => {
    expect(sanitizeServerMessage("x".repeat(1000), ROOT)).toHaveLength(301);
    // Between words: the module named last is whole or not there.
    const modules = Array.from({ length: 40 }, (_, i) => `github.com/org/module${i}`).join(" ");
    const cut = sanitizeServerMessage(`go: downloading ${modules}`, ROOT);
    expect(cut.length).toBeLessThanOrEqual(301);
    expect(cut).toMatch(/ github\.com\/org\/module\d+…$/);
    expect(sanitizeServerMessage("  ", ROOT)).toBe("no details given");
  });
});

test("a refusal in a server's own breakdown words is the server failing, not the caller's argument", () => {
  const crashed = serverAnswerError(
    "python",
    "textDocument/rename",
    { code: LSPErrorCodes.RequestFailed, message: "Maximum call stack size exceeded" },
    ROOT,
  );
  expect(crashed).toMatchObject({ code: "SERVER_FAILED" });
  const refused = serverAnswerError(
    "python",
    "textDocument/rename",
    { code: LSPErrorCodes.RequestFailed, message: "Cannot rename a keyword" },
    ROOT,
  );
  expect(refused).toMatchObject({ code: "INVALID_ARGUMENT" });
});

test("gopls without a package for the file: UNSUPPORTED saying why and that retrying will not help", () => {
  const error = serverAnswerError(
    "go",
    "textDocument/definition",
    { code: ErrorCodes.InternalError, message: `no package metadata for file file://${ROOT}/command.go` },
    ROOT,
  );
  expect(error.code).toBe("UNSUPPORTED");
  expect(error.message).toBe(
    "the go language server has no package holding this file (no package metadata for file command.go), so it cannot answer textDocument/definition there: its module did not load (workspace_status names the server's error: a missing dependency, a go.mod it cannot read), or build constraints (//go:build, a _windows.go name) leave the file out; retrying will not help until that is fixed",
  );
});
