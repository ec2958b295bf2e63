// The runner's query engine: answers lspmesh queries with real language servers. Knows LSP and
// the filesystem; knows nothing of gRPC or MCP. One object per area of queries.
import { DiagnosticsQueries } from "./diagnosticsQueries.js";
import { EngineContext, type EngineOptions } from "./engineContext.js";
import { NavigationQueries } from "./navigation.js";
import { StatusQueries } from "./statusQueries.js";

export type { LocationKind } from "./navigation.js";
export type { EngineOptions as QueryEngineOptions };

export class QueryEngine {
  readonly navigation: NavigationQueries;
  readonly diagnostics: DiagnosticsQueries;
  readonly status: StatusQueries;

  constructor(options: EngineOptions) {
    const context = new EngineContext(options);
    this.navigation = new NavigationQueries(context);
    this.diagnostics = new DiagnosticsQueries(context);
    this.status = new StatusQueries(context);
  }
}
