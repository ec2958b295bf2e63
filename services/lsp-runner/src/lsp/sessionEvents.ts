// What a language session tells its owner, so that other layers (status and diagnostics
// publishing, workspace watching) can follow it without the session knowing about them.
import type { StoredDiagnostics } from "./diagnosticsStore.js";
import type { LanguageSession } from "./languageSession.js";
import type { ServerStateName } from "./sessionState.js";

export type SessionEvent =
  /** The state changed (the first one, "starting", is told when the session is created). */
  | { type: "state"; session: LanguageSession; state: ServerStateName }
  /** New diagnostics were recorded for an open document (pushed or pulled). */
  | { type: "diagnostics"; session: LanguageSession; uri: string; stored: StoredDiagnostics }
  /** The session was closed; its server is stopped. Told once. */
  | { type: "closed"; session: LanguageSession };

/** Receives session events; must not throw (errors are swallowed to protect the session). */
export type SessionEventListener = (event: SessionEvent) => void;
