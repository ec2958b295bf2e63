// What a language server asks of its client and pushes to it, answered on a session's behalf:
// settings, workspace folders, progress tokens and capability registrations; refresh requests
// acknowledged; edits refused (servers never write behind the caller's back); progress,
// diagnostics and log lines handed to the session.
import { fileURLToPath, pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import {
  ApplyWorkspaceEditRequest,
  CodeLensRefreshRequest,
  ConfigurationRequest,
  DiagnosticRefreshRequest,
  InlayHintRefreshRequest,
  InlineValueRefreshRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  RegistrationRequest,
  SemanticTokensRefreshRequest,
  ShowDocumentRequest,
  ShowMessageRequest,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
} from "vscode-languageserver-protocol";
import type { CapabilityRegistrations } from "./capabilityRegistrations.js";
import type { ProgressTracker } from "./sessionState.js";

/** What the handlers need from the session. */
export interface ServerRequestHost {
  /** Served to `workspace/configuration` by section. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly rootUri: string;
  readonly progress: ProgressTracker;
  /**
   * False: the server's work-done progress is not indexing, a readiness probe says when it is
   * ready (pyright reports the check of each open or asked-for file as progress).
   */
  readonly progressIsIndexing: boolean;
  readonly registrations: CapabilityRegistrations;
  /** Diagnostics the server pushed, with the document URI in one canonical spelling. */
  onDiagnostics(params: PublishDiagnosticsParams): void;
  onLog(message: string): void;
  /** Progress began or ended: the session's state may have changed. */
  onProgress(): void;
}

export function answerServerRequests(connection: MessageConnection, host: ServerRequestHost): void {
  connection.onRequest(ConfigurationRequest.type, (params) =>
    params.items.map((item) => lookupSetting(host.settings, item.section)),
  );
  connection.onRequest(WorkspaceFoldersRequest.type, () => [{ uri: host.rootUri, name: "workspace" }]);
  // A created progress token counts as work under way until its "end" (the "begin" can come later).
  connection.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
    if (!host.progressIsIndexing) return null;
    host.progress.create(params.token);
    host.onProgress();
    return null;
  });
  connection.onRequest(RegistrationRequest.type, (params) => {
    host.registrations.register(params);
    return null;
  });
  connection.onRequest(UnregistrationRequest.type, (params) => {
    host.registrations.unregister(params);
    return null;
  });
  // Nothing to show or refresh here: an acknowledgement is the whole answer.
  for (const type of [
    ShowMessageRequest.type,
    ShowDocumentRequest.type,
    DiagnosticRefreshRequest.type,
    SemanticTokensRefreshRequest.type,
    InlayHintRefreshRequest.type,
    CodeLensRefreshRequest.type,
    InlineValueRefreshRequest.type,
  ]) {
    connection.onRequest(type.method, () => null);
  }
  connection.onRequest(ApplyWorkspaceEditRequest.type, () => ({
    applied: false,
    failureReason: "lspmesh applies edits only on request",
  }));
  // `$/progress` is generic over its value (ProgressType); the tracker reads work-done progress only.
  connection.onNotification("$/progress", (params: { token: string | number; value: { kind?: string } }) => {
    if (!host.progressIsIndexing) return;
    host.progress.update(params.token, params.value);
    host.onProgress();
  });
  connection.onNotification(PublishDiagnosticsNotification.type, (params) =>
    host.onDiagnostics({ ...params, uri: canonicalUri(params.uri) }),
  );
  connection.onNotification(LogMessageNotification.type, (params) => host.onLog(params.message));
}

/** One spelling per file URI, whatever percent-encoding the server chose. */
export function canonicalUri(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}

/** `workspace/configuration` answer for a section such as "formattingOptions" or "python.analysis". */
export function lookupSetting(settings: Readonly<Record<string, unknown>>, section: string | undefined): unknown {
  if (!section) return settings;
  let value: unknown = settings;
  for (const part of section.split(".")) {
    if (value === null || typeof value !== "object") return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}
