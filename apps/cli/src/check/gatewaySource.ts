// Diagnostics through a gateway: the official MCP client over Streamable HTTP, calling the
// gateway's `diagnostics` tool (services/gateway/src/mcp/tools/diagnostics.ts) and reading its
// structuredContent. Tool errors carry their stable code in `_meta["lspmesh/error"]`.
import { ERROR_META_KEY } from "@lspmesh/proto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Finding, severityFromName } from "./findings.js";
import { CheckError, type DiagnosticsSource, type SourceAnswer, SourceError } from "./source.js";

/** The gateway's largest `wait_ms` (services/gateway/src/mcp/tools/diagnostics.ts). */
const GATEWAY_MAX_WAIT_MS = 60_000;
/** Room on top of wait_ms for the gateway's own runner deadline (gateway default 30 000 ms) and the trip. */
const REQUEST_SLACK_MS = 45_000;

/** Diagnostics asked for per page (the tool's largest limit); pages follow next_offset. */
const PAGE_LIMIT = 500;

interface StructuredDiagnostics {
  state: string;
  server: string;
  next_offset?: number;
  files: Array<{
    file: string;
    fresh: boolean;
    diagnostics: Array<{
      line: number;
      column: number;
      end_line: number;
      end_column: number;
      severity: string;
      code?: string;
      source?: string;
      message: string;
    }>;
  }>;
}

interface ToolResult {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/** One MCP connection to a gateway, shared by the sources of every workspace it serves. */
export class GatewayConnection {
  private constructor(
    readonly url: URL,
    private readonly client: Client,
  ) {}

  static async open(url: URL, token: string | undefined, clientVersion: string): Promise<GatewayConnection> {
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    const client = new Client({ name: "lspmesh-check", version: clientVersion });
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    } catch (error) {
      await client.close().catch(() => {});
      throw new CheckError(connectFailure(url, error, token !== undefined));
    }
    return new GatewayConnection(url, client);
  }

  source(workspace: string | undefined): DiagnosticsSource {
    return new GatewaySource(this, workspace);
  }

  async callDiagnostics(args: Record<string, unknown>, timeoutMs: number): Promise<ToolResult> {
    try {
      return (await this.client.callTool(
        { name: "diagnostics", arguments: args },
        { timeout: timeoutMs },
      )) as ToolResult;
    } catch (error) {
      throw new SourceError("UNAVAILABLE", `the gateway at ${this.url.href} did not answer: ${messageOf(error)}`);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

class GatewaySource implements DiagnosticsSource {
  readonly description: string;
  readonly maxWaitMs = GATEWAY_MAX_WAIT_MS;

  constructor(
    private readonly connection: GatewayConnection,
    private readonly workspace: string | undefined,
  ) {
    this.description = `gateway ${connection.url.href}${workspace ? ` (workspace '${workspace}')` : ""}`;
  }

  supports(): undefined {
    return undefined;
  }

  async diagnostics(files: string[], waitMs: number): Promise<SourceAnswer> {
    const wait = Math.max(0, Math.min(Math.round(waitMs), GATEWAY_MAX_WAIT_MS));
    // Every severity, every page: the tool lists a page at a time, the check reports them all.
    const byFile = new Map<string, SourceAnswer["files"][number]>();
    let first: StructuredDiagnostics | undefined;
    let offset: number | undefined = 0;
    let pageWait = wait;
    while (offset !== undefined) {
      const args: Record<string, unknown> = { files, wait_ms: pageWait, severity: "hint", limit: PAGE_LIMIT, offset };
      if (this.workspace) args.workspace = this.workspace;
      const page = await this.page(args, wait + REQUEST_SLACK_MS);
      first ??= page;
      for (const file of page.files) {
        const entry = byFile.get(file.file) ?? { file: file.file, fresh: file.fresh, findings: [] };
        byFile.set(file.file, entry);
        entry.findings.push(...file.diagnostics.map((d) => findingOf(file.file, d)));
      }
      offset = page.next_offset;
      // Later pages answer from what the first one waited for.
      pageWait = 0;
    }
    return { state: first!.state, server: first!.server, files: [...byFile.values()] };
  }

  private async page(args: Record<string, unknown>, timeoutMs: number): Promise<StructuredDiagnostics> {
    const result = await this.connection.callDiagnostics(args, timeoutMs);
    if (result.isError) throw toolError(result);
    const structured = result.structuredContent as StructuredDiagnostics | undefined;
    if (!structured || !Array.isArray(structured.files)) {
      throw new SourceError(
        "UNAVAILABLE",
        "the gateway's diagnostics answer had no structured content; upgrade the gateway",
      );
    }
    return structured;
  }

  // The connection is shared; GatewayConnection.close() ends it.
  async close(): Promise<void> {}
}

function findingOf(file: string, d: StructuredDiagnostics["files"][number]["diagnostics"][number]): Finding {
  return {
    file,
    line: d.line,
    column: d.column,
    endLine: d.end_line,
    endColumn: d.end_column,
    severity: severityFromName(d.severity),
    code: d.code ?? "",
    source: d.source ?? "",
    message: d.message,
  };
}

function toolError(result: ToolResult): SourceError {
  const meta = result._meta?.[ERROR_META_KEY] as { code?: unknown; message?: unknown } | undefined;
  const text = (result.content ?? []).map((c) => c.text ?? "").join("\n");
  if (typeof meta?.code === "string") {
    return new SourceError(meta.code, typeof meta.message === "string" ? meta.message : text);
  }
  // Older gateways: "CODE: message" in the text.
  const match = /^([A-Z_]+): ([\s\S]*)$/.exec(text);
  return match ? new SourceError(match[1]!, match[2]!) : new SourceError("UNAVAILABLE", text || "unknown tool error");
}

function connectFailure(url: URL, error: unknown, withToken: boolean): string {
  const text = messageOf(error);
  if (/\b401\b|unauthori[sz]ed/i.test(text)) {
    return withToken
      ? `the gateway at ${url.href} refused the token (401): check the token in the environment variable`
      : `the gateway at ${url.href} needs a token (401): put it in LSPMESH_TOKEN, or name another variable with --token-env`;
  }
  if (/\b403\b|forbidden/i.test(text)) return `the gateway at ${url.href} refused this token (403): it lacks lsp:read`;
  return `cannot reach the gateway at ${url.href}: ${text}; check --gateway (it ends in /mcp)`;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ? `${error.message} (${cause.code})` : error.message;
  }
  return String(error);
}
