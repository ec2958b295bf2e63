// MCP over Streamable HTTP for the requests the front door admitted: the scope a request needs
// is decided first (a refusal is the front door's 403), then 2025-era cancellations are applied,
// then the request goes down its serving path (servingPath.ts).
import type { ServerResponse } from "node:http";
import { type Logger, tracingEnabled, withTraceParent } from "@lspmesh/service-kit";
import { createGatewayMcpServer, gatewayToolHandlers } from "../createMcpServer.js";
import type { ToolDeps } from "../toolCall.js";
import type { AdmittedMcpRequest, InsufficientScope, ServeOnPath } from "./admittedRequest.js";
import { freshServerJsonPath } from "./freshServerJsonPath.js";
import { InFlightRequests } from "./inFlightRequests.js";
import { scopeMissingFor } from "./requiredScope.js";
import { type SdkHandlerPath, sdkHandlerPath } from "./sdkHandlerPath.js";
import { pickServingPath } from "./servingPath.js";
import { SharedServerPath } from "./sharedServerPath.js";

export class McpServing {
  private readonly inFlight = new InFlightRequests();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly logger: Logger,
    private readonly readOnly: boolean,
    private readonly sdkHandler: SdkHandlerPath,
    private readonly freshServerJson: ServeOnPath,
    private readonly sharedServer: SharedServerPath,
  ) {}

  static async start(deps: ToolDeps): Promise<McpServing> {
    const factory = () => createGatewayMcpServer(deps);
    const sdkHandler = sdkHandlerPath(factory, deps.logger);
    const sharedServer = await SharedServerPath.start(createGatewayMcpServer(deps), gatewayToolHandlers(deps));
    return new McpServing(
      deps.logger,
      deps.readOnly === true,
      sdkHandler,
      freshServerJsonPath(factory, deps.logger),
      sharedServer,
    );
  }

  /** Serves `request` on `res`; or, when the caller lacks a scope it needs, serves nothing and says which. */
  async serve(request: AdmittedMcpRequest, res: ServerResponse): Promise<InsufficientScope | undefined> {
    const missing = scopeMissingFor(request, this.readOnly);
    if (missing) return { kind: "insufficient_scope", missing };
    this.applyCancellations(request, res);
    // While tracing is on, a traceparent header is the parent of the tool calls the request carries.
    if (tracingEnabled()) await withTraceParent(request.req.headers, () => this.serveOnPath(request, res));
    else await this.serveOnPath(request, res);
    return undefined;
  }

  private serveOnPath(request: AdmittedMcpRequest, res: ServerResponse): Promise<void> {
    const path = pickServingPath(request, this.sharedServer);
    if (path.name === "shared-server") return this.sharedServer.serve(path.call, request.principal, res);
    if (path.name === "fresh-server-json") return this.freshServerJson(request, res);
    return this.sdkHandler.serve(request, res);
  }

  /** Closes every server and what they have in flight. Idempotent. */
  close(): Promise<void> {
    this.closing ??= Promise.all([this.sdkHandler.close(), this.sharedServer.close()]).then(() => {});
    return this.closing;
  }

  /**
   * A 2025-era client cancels with a notification in a POST of its own, which stateless serving
   * hands to a server that never saw the request: the request's response is closed instead.
   */
  private applyCancellations(request: AdmittedMcpRequest, res: ServerResponse): void {
    if (request.parsed === undefined) return;
    const { tenant, subject } = request.principal;
    const origin = { tenant, subject, address: request.req.socket.remoteAddress ?? "" };
    if (this.inFlight.cancel(origin, request.parsed) > 0) this.logger.debug("request cancelled by the client", origin);
    this.inFlight.track(origin, request.parsed, res);
  }
}
