import type { ClientCapabilities } from "vscode-languageserver-protocol";

/** What the runner tells servers it can do: what our operations use, and nothing we would ignore. */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ["utf-16", "utf-8", "utf-32"] },
  window: { workDoneProgress: true },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    symbol: { dynamicRegistration: false },
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
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
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
