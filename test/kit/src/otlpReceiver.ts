// A tiny OTLP/HTTP trace receiver on a free loopback port, standing in for an OpenTelemetry
// collector: processes started with OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint POST their spans
// here (protobuf, as lspmesh exports them), and the test reads them back decoded.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { decodeTraceRequest, type ReceivedSpan } from "./otlpTraces.js";

export interface OtlpReceiver extends AsyncDisposable {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  readonly endpoint: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** Export requests that could not be decoded (none expected). */
  readonly failures: string[];
  /** Stops listening. Idempotent. */
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const failures: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      try {
        const body = Buffer.concat(chunks);
        received.push(...decodeTraceRequest(req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body));
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      } catch (error) {
        failures.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closing;
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    failures,
    close,
    [Symbol.asyncDispose]: close,
  };
}
