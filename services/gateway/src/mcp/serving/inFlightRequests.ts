// Cancellation for 2025-era clients. In stateless serving a client's `notifications/cancelled`
// arrives as its own POST, handled by a fresh server that never saw the request. This registry
// remembers the HTTP response of every request in flight, by who sent it and its JSON-RPC id,
// and a matching cancellation closes that response: the MCP handler then aborts the request's
// signal, which cancels the runner call, exactly as when the client disconnects. (2026-07-28
// clients cancel by closing the response stream themselves.)

/** What identifies a request's sender well enough: tenant, token subject and client address. */
export interface RequestOrigin {
  tenant: string;
  subject: string;
  address: string;
}

interface Closable {
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

export class InFlightRequests {
  private readonly byKey = new Map<string, Set<Closable>>();

  private key(origin: RequestOrigin, id: unknown): string {
    return JSON.stringify([origin.tenant, origin.subject, origin.address, id]);
  }

  /** Remembers `response` for the requests (messages with a method and an id) in `body`, until it closes. */
  track(origin: RequestOrigin, body: unknown, response: Closable): void {
    for (const message of messages(body)) {
      if (typeof message.method !== "string" || message.method.startsWith("notifications/")) continue;
      if (typeof message.id !== "string" && typeof message.id !== "number") continue;
      const key = this.key(origin, message.id);
      const open = this.byKey.get(key) ?? new Set();
      open.add(response);
      this.byKey.set(key, open);
      response.once("close", () => {
        open.delete(response);
        if (open.size === 0 && this.byKey.get(key) === open) this.byKey.delete(key);
      });
    }
  }

  /**
   * Applies the `notifications/cancelled` in `body`: closes the one matching response. Two
   * requests in flight with the same sender and id (one token shared by several clients on one
   * host) are ambiguous and left to finish: a cancel never hits another client's call.
   * Returns how many requests were cancelled.
   */
  cancel(origin: RequestOrigin, body: unknown): number {
    let cancelled = 0;
    for (const message of messages(body)) {
      if (message.method !== "notifications/cancelled") continue;
      const open = this.byKey.get(this.key(origin, (message.params as { requestId?: unknown } | undefined)?.requestId));
      if (open?.size !== 1) continue;
      const [response] = open;
      response!.destroy();
      cancelled++;
    }
    return cancelled;
  }

  get size(): number {
    return this.byKey.size;
  }
}

function messages(body: unknown): Array<{ method?: unknown; id?: unknown; params?: unknown }> {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((message): message is { method?: unknown } => typeof message === "object" && message !== null);
}
