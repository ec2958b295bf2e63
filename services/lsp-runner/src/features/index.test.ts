import { describe, expect, test } from "vitest";
import type { ClientCapabilities, SymbolKind } from "vscode-languageserver-protocol";
import {
  cachedMethods,
  featureCapabilities,
  mergeCapabilities,
  RUNNER_FEATURES,
  runnerClientCapabilities,
} from "./index.js";

/** LSP 3.17 symbol kinds, File (1) to TypeParameter (26). */
const ALL_KINDS = Array.from({ length: 26 }, (_, index) => (index + 1) as SymbolKind);

/** What servers were told before capabilities were declared per feature, in one list. */
const DECLARED_IN_ONE_LIST: ClientCapabilities = {
  general: { positionEncodings: ["utf-16", "utf-8", "utf-32"] },
  window: { workDoneProgress: true },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    symbol: { dynamicRegistration: false, symbolKind: { valueSet: ALL_KINDS } },
    // Watchers (RelativePattern included) are honoured by CapabilityRegistrations.
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
    fileOperations: { willRename: true, didRename: true },
    diagnostics: { refreshSupport: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false },
    definition: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true, symbolKind: { valueSet: ALL_KINDS } },
    publishDiagnostics: { versionSupport: true, relatedInformation: true },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
    completion: { completionItem: { snippetSupport: false, documentationFormat: ["markdown", "plaintext"] } },
    signatureHelp: { signatureInformation: { documentationFormat: ["markdown", "plaintext"] } },
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: { valueSet: ["", "quickfix", "refactor", "refactor.extract", "refactor.rewrite", "source"] },
      },
      resolveSupport: { properties: ["edit"] },
    },
    formatting: {},
    rename: { prepareSupport: true },
    callHierarchy: {},
    typeHierarchy: {},
    inlayHint: {},
  },
};

describe("runner features", () => {
  test("the session's capabilities and the features' together are what servers are told", () => {
    // Features added since may add more; none may drop or change what was declared.
    expect(runnerClientCapabilities()).toMatchObject(DECLARED_IN_ONE_LIST);
  });

  test("each feature's capabilities end up in the one set servers are initialized with", () => {
    const capabilities = featureCapabilities();
    expect(capabilities.textDocument?.hover).toEqual({ contentFormat: ["markdown", "plaintext"] });
    expect(capabilities.textDocument?.definition).toEqual({ linkSupport: true });
    expect(capabilities.workspace?.fileOperations).toEqual({ willRename: true, didRename: true });
  });

  test("only reading requests are remembered: edits, completions and code actions never", () => {
    const methods = cachedMethods();
    expect(methods).toContain("textDocument/hover");
    expect(methods).toContain("textDocument/references");
    for (const method of ["textDocument/rename", "textDocument/completion", "textDocument/codeAction"])
      expect(methods).not.toContain(method);
  });

  test("every feature has a name and serves at least one gRPC method", () => {
    for (const feature of RUNNER_FEATURES) {
      expect(feature.name).not.toBe("");
      expect(Object.keys(feature.rpc({} as never)).length).toBeGreaterThan(0);
    }
  });

  test("capabilities merge key by key; arrays and values replace", () => {
    expect(
      mergeCapabilities<Record<string, unknown>>(
        { textDocument: { hover: { contentFormat: ["plaintext"] } }, window: { workDoneProgress: true } },
        { textDocument: { hover: { contentFormat: ["markdown"] }, references: {} } },
      ),
    ).toEqual({
      textDocument: { hover: { contentFormat: ["markdown"] }, references: {} },
      window: { workDoneProgress: true },
    });
  });
});
