// Direct worker connections (LSPMESH_WORKER_LISTEN; docs/architecture.md): a gateway opens one
// connection per tenant with an HTTP CONNECT naming the tenant (`<tenant>.tenants.lspmesh:1`) and
// carrying the runner's credential (`Proxy-Authorization: Basic`, password = the secret it would
// send as `authorization: Bearer`). The supervisor checks both, answers 200 and hands the socket to
// that tenant's worker, which serves gRPC on it from then on: no call on it crosses the supervisor.
// The worker never sees the credential: it was read here, before the handover. Refusals are plain
// HTTP statuses (407 bad credential, 404 tenant not served here, 503 worker unavailable) that the
// gateway's channel reports as a failed connection; it keeps using the relayed path meanwhile.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import { GRPC_AUTHORIZATION_KEY, type GrpcAuth, Metadata } from "@lspmesh/grpc";
import { ID_PATTERN, WORKER_TARGET_SUFFIX } from "@lspmesh/proto";
import { splitHostPort } from "@lspmesh/service-kit";
import { RunnerError } from "../errors.js";
import type { TenantWorkers } from "./tenantWorkers.js";

/** How long a client may take to send its CONNECT request, ms. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface WorkerConnectionsOptions {
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  grpcAuth: GrpcAuth;
  workers: Pick<TenantWorkers, "workerOf">;
  log: (entry: Record<string, unknown>) => void;
}

export class WorkerConnections {
  private readonly sockets = new Set<Socket>();
  private handedOver = 0;
  private closed = false;

  private constructor(
    private readonly server: Server,
    /** host:port actually bound. */
    readonly address: string,
  ) {}

  static async listen(options: WorkerConnectionsOptions): Promise<WorkerConnections> {
    const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS });
    const [host, port] = splitHostPort(options.listen);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(Number(port), host.replace(/^\[(.*)\]$/, "$1"), () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = server.address();
    const address = typeof bound === "object" && bound ? `${host}:${bound.port}` : options.listen;
    const connections = new WorkerConnections(server, address);
    connections.serve(options);
    return connections;
  }

  /** Connections handed to workers so far (metrics, tests). */
  get handedOverCount(): number {
    return this.handedOver;
  }

  /**
   * Stops taking connections; those handed over are the workers' (they end with them). Does not
   * wait for the server's "close": Node counts a socket handed to a child as the server's until
   * that child closes it, so it would wait for the workers, which stop after this. Idempotent.
   */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.server.close();
      for (const socket of this.sockets) socket.destroy();
      this.server.closeAllConnections();
    }
    return Promise.resolve();
  }

  private serve(options: WorkerConnectionsOptions): void {
    const { server } = this;
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    // Anything but CONNECT: this port carries gRPC only through a tunnel.
    server.on("request", (_request, response) => {
      response.writeHead(405, { "content-type": "text/plain", connection: "close" });
      response.end("this port takes HTTP CONNECT to a tenant's worker only\n");
    });
    server.on("connect", (request: IncomingMessage, socket: Socket, head: Buffer) => {
      socket.on("error", () => {});
      stopReading(socket);
      void this.connect(options, request, socket, head).catch((error: unknown) => {
        const status = error instanceof ConnectRefusal ? error.status : 503;
        refuse(socket, status, error instanceof Error ? error.message : String(error));
        if (status === 503) options.log({ level: "warn", msg: "worker connection refused", error: String(error) });
      });
    });
  }

  private async connect(
    options: WorkerConnectionsOptions,
    request: IncomingMessage,
    socket: Socket,
    head: Buffer,
  ): Promise<void> {
    if (this.closed) throw new ConnectRefusal(503, "the runner is shutting down");
    if (!options.grpcAuth.authorizes({ metadata: bearerOf(request.headers["proxy-authorization"]) }))
      throw new ConnectRefusal(407, "the credential is missing or wrong");
    const tenant = tenantOf(request.url ?? "");
    if (!tenant) throw new ConnectRefusal(400, `CONNECT names <tenant>${WORKER_TARGET_SUFFIX}:<port>`);
    const worker = await options.workers.workerOf(tenant).catch((error: unknown) => {
      if (error instanceof RunnerError && error.code === "NOT_FOUND") throw new ConnectRefusal(404, "unknown tenant");
      throw error;
    });
    if (this.closed || socket.destroyed) throw new ConnectRefusal(503, "the runner is shutting down");
    // The 200 goes out before the handover: from then on only the worker reads and writes the
    // socket. What the client sends after the 200 waits in the kernel for the worker (this side
    // stopped reading), and anything read before is handed over with it.
    this.sockets.delete(socket);
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n", () => {
      const buffered = socket.readableLength > 0 ? (socket.read() as Buffer | null) : null;
      if (worker.adopt(socket, buffered ? Buffer.concat([head, buffered]) : head)) this.handedOver += 1;
    });
  }
}

class ConnectRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * No more reading from the socket in this process: bytes read here after the CONNECT would be
 * lost when the socket goes to the worker (Node hands over the descriptor, not what this side
 * buffered, and drops what arrives while it is being sent). net.Socket has no public readStop.
 */
function stopReading(socket: Socket): void {
  socket.pause();
  (socket as unknown as { _handle?: { readStop?: () => number; reading?: boolean } })._handle?.readStop?.();
}

/** `Basic base64(user:secret)` as the metadata a Runner call would carry (`authorization: Bearer secret`). */
function bearerOf(header: string | undefined): Metadata {
  const metadata = new Metadata();
  if (header?.startsWith("Basic ")) {
    const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon >= 0) metadata.set(GRPC_AUTHORIZATION_KEY, `Bearer ${decoded.slice(colon + 1)}`);
  }
  return metadata;
}

/** The tenant a CONNECT target `<tenant>.tenants.lspmesh:<port>` names, or undefined. */
export function tenantOf(target: string): string | undefined {
  const colon = target.lastIndexOf(":");
  const host = colon < 0 ? target : target.slice(0, colon);
  if (!host.endsWith(WORKER_TARGET_SUFFIX)) return undefined;
  const tenant = host.slice(0, -WORKER_TARGET_SUFFIX.length);
  return ID_PATTERN.test(tenant) ? tenant : undefined;
}

function refuse(socket: Socket, status: number, message: string): void {
  if (socket.destroyed) return;
  const reason =
    { 400: "Bad Request", 404: "Not Found", 407: "Proxy Authentication Required" }[status] ?? "Service Unavailable";
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
