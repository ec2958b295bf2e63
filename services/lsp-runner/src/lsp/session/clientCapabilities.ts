import type { ClientCapabilities } from "vscode-languageserver-protocol";

/**
 * What the session itself relies on, whatever the runner asks: position encodings, progress,
 * configuration and watched files, document sync and diagnostics (pushed and pulled, kept by the
 * session). Each LSP feature adds its own capabilities (features/, merged by the runner).
 */
export const SESSION_CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ["utf-16", "utf-8", "utf-32"] },
  window: { workDoneProgress: true },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    // Watchers (RelativePattern included) are honoured by CapabilityRegistrations.
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
    diagnostics: { refreshSupport: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false },
    publishDiagnostics: { versionSupport: true, relatedInformation: true },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
  },
};
