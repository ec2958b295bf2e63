// Every LSP feature the runner serves. The client capabilities servers are initialized with, the
// requests whose answers may be remembered and the gRPC table are derived from this list.
import type { ClientCapabilities } from "vscode-languageserver-protocol";
import type { QueryEngine } from "../engine/queryEngine.js";
import { SESSION_CLIENT_CAPABILITIES } from "../lsp/session/clientCapabilities.js";
import { checkEditFeature } from "./checkEdit.js";
import { codeActionsFeature } from "./codeActions.js";
import { completionsFeature } from "./completions.js";
import { diagnosticsFeature } from "./diagnostics.js";
import { documentHighlightFeature } from "./documentHighlight.js";
import { documentSymbolsFeature } from "./documentSymbols.js";
import { formattingFeature } from "./formatting.js";
import { callHierarchyFeature, typeHierarchyFeature } from "./hierarchies.js";
import { hoverFeature } from "./hover.js";
import { inlayHintsFeature } from "./inlayHints.js";
import { locationsFeature } from "./locations.js";
import { referencesFeature } from "./references.js";
import { renameFileFeature } from "./renameFile.js";
import { renameSymbolFeature } from "./renameSymbol.js";
import { restartServerFeature } from "./restartServer.js";
import type { RunnerFeature, RunnerMethods } from "./runnerFeature.js";
import { signatureHelpFeature } from "./signatureHelp.js";
import { symbolEditsFeature } from "./symbolEdits.js";
import { workspaceEditsFeature } from "./workspaceEdits.js";
import { workspaceFilesFeature } from "./workspaceFiles.js";
import { workspaceSymbolsFeature } from "./workspaceSymbols.js";

export type { RunnerFeature, RunnerMethods } from "./runnerFeature.js";

export const RUNNER_FEATURES: readonly RunnerFeature[] = [
  locationsFeature,
  referencesFeature,
  hoverFeature,
  documentHighlightFeature,
  documentSymbolsFeature,
  workspaceSymbolsFeature,
  diagnosticsFeature,
  completionsFeature,
  signatureHelpFeature,
  inlayHintsFeature,
  codeActionsFeature,
  formattingFeature,
  renameSymbolFeature,
  renameFileFeature,
  workspaceEditsFeature,
  callHierarchyFeature,
  typeHierarchyFeature,
  checkEditFeature,
  symbolEditsFeature,
  restartServerFeature,
  workspaceFilesFeature,
];

/** What servers are told the runner can do: what the session relies on plus every feature's. */
export function runnerClientCapabilities(features: readonly RunnerFeature[] = RUNNER_FEATURES): ClientCapabilities {
  return mergeCapabilities(SESSION_CLIENT_CAPABILITIES, featureCapabilities(features));
}

/** What the features add to the capabilities the session itself declares. */
export function featureCapabilities(features: readonly RunnerFeature[] = RUNNER_FEATURES): ClientCapabilities {
  return features.reduce<ClientCapabilities>((all, feature) => mergeCapabilities(all, feature.capabilities), {});
}

/** LSP requests that only read: their answers may be shared and remembered (AnswerCache). */
export function cachedMethods(features: readonly RunnerFeature[] = RUNNER_FEATURES): ReadonlySet<string> {
  return new Set(features.flatMap((feature) => feature.cachedMethods));
}

/** The gRPC handlers of every feature; two features serving one method is a programming error. */
export function featureHandlers(engine: QueryEngine, features = RUNNER_FEATURES): Partial<RunnerMethods> {
  const handlers: Partial<RunnerMethods> = {};
  for (const feature of features) {
    for (const [method, handler] of Object.entries(feature.rpc(engine))) {
      if (method in handlers) throw new Error(`two runner features serve the gRPC method ${method}`);
      Object.assign(handlers, { [method]: handler });
    }
  }
  return handlers;
}

/** Objects merged key by key (a feature adds to `textDocument` or `workspace`; arrays and values replace). */
export function mergeCapabilities<T extends object>(base: T, extra: T): T {
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    const bothObjects = isPlainObject(current) && isPlainObject(value);
    merged[key] = bothObjects ? mergeCapabilities<Record<string, unknown>>(current, value) : value;
  }
  return merged as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
