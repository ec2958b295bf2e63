// An MCP transport that lets one long-lived server answer many callers' requests at once, each
// request handed in with its own caller (authInfo) and answered on its own promise. JSON-RPC ids
// are only unique per client, so every request gets a transport-wide id on the way in and its
// own id back on the way out. Messages the server sends that answer no pending request
// (notifications: the requests it serves asked for no progress) have nowhere to go and are dropped,
// as the Streamable HTTP JSON response mode drops them.
import type {
  AuthInfo,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResponse,
  RequestId,
  Transport,
} from "@modelcontextprotocol/server";

interface Pending {
  /** The id the caller gave the request. */
  readonly callerId: RequestId;
  readonly resolve: (response: JSONRPCResponse | undefined) => void;
}

export class MultiplexedTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport["onmessage"];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** Protocol versions the connected server supports (it tells at connect). */
  supportedProtocolVersions: readonly string[] | undefined;

  async start(): Promise<void> {}

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedProtocolVersions = versions;
  }

  /**
   * Hands `request` to the server as `authInfo`'s and resolves with its response (under the
   * request's own id), or with undefined once `signal` aborted: the server is then told the
   * request was cancelled, which aborts the handler's signal.
   */
  request(request: JSONRPCRequest, authInfo: AuthInfo, signal?: AbortSignal): Promise<JSONRPCResponse | undefined> {
    if (this.closed) return Promise.reject(new Error("the MCP server is closed"));
    if (signal?.aborted) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        resolve(undefined);
        this.onmessage?.(
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "client went away" } },
          { authInfo },
        );
      };
      this.pending.set(id, {
        callerId: request.id,
        resolve: (response) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(response);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.onmessage?.({ ...request, id }, { authInfo });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || typeof message.id !== "number" || !("result" in message || "error" in message)) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    pending.resolve({ ...message, id: pending.callerId });
  }

  /** Ends every pending request with undefined (no answer). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const pending of waiting) pending.resolve(undefined);
    this.onclose?.();
  }

  /** Requests handed in and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }
}
