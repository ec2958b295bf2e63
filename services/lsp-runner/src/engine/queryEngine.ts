// The runner's query engine: answers lspmesh queries with real language servers. Knows LSP and
// the filesystem; knows nothing of gRPC or MCP. One object per area of queries.
import type { AnswerCache } from "./answerCache.js";
import type { WorkspaceRef } from "./answers.js";
import { AssistanceQueries } from "./assistance.js";
import { DiagnosticsQueries } from "./diagnosticsQueries.js";
import { EditApplier } from "./editApplier.js";
import { EditCheck } from "./editCheck.js";
import { EditingQueries } from "./editing.js";
import { EngineContext, type EngineOptions } from "./engineContext.js";
import { HierarchyQueries } from "./hierarchies.js";
import { NavigationQueries } from "./navigation.js";
import { StatusQueries } from "./statusQueries.js";

export type * from "./queries.js";
export type { EngineOptions as QueryEngineOptions };

export class QueryEngine {
  readonly navigation: NavigationQueries;
  readonly diagnostics: DiagnosticsQueries;
  readonly status: StatusQueries;
  readonly assistance: AssistanceQueries;
  readonly hierarchies: HierarchyQueries;
  readonly editing: EditingQueries;
  /** check_edit, and the diagnostics delta of applied edits. */
  readonly checks: EditCheck;
  /** Read-only answers shared and remembered (its counts are a runner metric). */
  readonly answers: AnswerCache;
  /** What every query is built from (open documents, ask a server, convert positions): features asking a request of their own use it. */
  readonly context: EngineContext;

  /** Undoes edits a crash interrupted in a workspace (done anyway before its first query). */
  readonly recoverEdits: (ref: WorkspaceRef) => Promise<void>;

  constructor(options: EngineOptions) {
    const context = new EngineContext(options);
    this.context = context;
    this.recoverEdits = (ref) => context.recoverEditsOf(ref);
    this.answers = context.answers;
    this.navigation = new NavigationQueries(context);
    this.diagnostics = new DiagnosticsQueries(context);
    this.status = new StatusQueries(context);
    this.assistance = new AssistanceQueries(context);
    this.hierarchies = new HierarchyQueries(context);
    this.editing = new EditingQueries(context, new EditApplier(context));
    this.checks = new EditCheck(context, this.diagnostics);
  }
}
