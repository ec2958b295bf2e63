// A workspace's diagnostics from NATS: the JetStream stream LSPMESH_DIAG keeps the latest message
// of every file (`lspmesh.diag.<tenant>.<workspace>.<fileKey>`). An ordered consumer with
// deliver-last-per-subject replays the current state of every file, then follows live changes.
import {
  DIAGNOSTICS_STREAM,
  type DiagnosticsMessage,
  decodeFileKey,
  decodeJson,
  diagnosticsWildcard,
  ORDERED_CONSUME_OPTIONS,
} from "@lspmesh/events";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { type ConnectionOptions, connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { CheckError } from "../check/source.js";

export interface FeedOptions {
  natsUrl: string;
  /** Contents of a NATS .creds file, when the server needs one. */
  creds?: Uint8Array;
  tenant: string;
  workspace: string;
  /** Keep following live changes after the current state (false: stop once it is replayed). */
  follow: boolean;
}

export interface DiagnosticsFeed {
  /** Resolves when the replay ends (follow: false) or the feed is closed. */
  readonly finished: Promise<void>;
  /** Stops the consumer and drains the connection. Idempotent. */
  close(): Promise<void>;
}

export async function openDiagnosticsFeed(
  options: FeedOptions,
  onMessage: (message: DiagnosticsMessage) => void,
): Promise<DiagnosticsFeed> {
  const connectOptions: ConnectionOptions = { servers: options.natsUrl, name: "lspmesh-diagnostics-watch" };
  if (options.creds) connectOptions.authenticator = credsAuthenticator(options.creds);
  let nc: NatsConnection;
  try {
    nc = await connect(connectOptions);
  } catch (error) {
    throw new CheckError(`cannot connect to NATS at ${options.natsUrl}: ${(error as Error).message}`);
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= nc.drain().catch(() => nc.close());
    return closing;
  };
  try {
    const subjects = diagnosticsWildcard(options.tenant, options.workspace);
    const manager = await jetstreamManager(nc);
    const info = await manager.streams.info(DIAGNOSTICS_STREAM, { subjects_filter: subjects }).catch((error: Error) => {
      throw new CheckError(
        /not found/i.test(error.message)
          ? `NATS at ${options.natsUrl} has no stream ${DIAGNOSTICS_STREAM}: no runner has published diagnostics there yet`
          : `cannot read the stream ${DIAGNOSTICS_STREAM}: ${error.message}`,
      );
    });
    const filesNow = Object.keys(info.state.subjects ?? {}).length;
    if (!options.follow && filesNow === 0) return { finished: Promise.resolve(), close };
    const consumer = await jetstream(nc).consumers.get(DIAGNOSTICS_STREAM, {
      filter_subjects: subjects,
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    const messages = await consumer.consume(ORDERED_CONSUME_OPTIONS);
    const finished = (async () => {
      let replayed = 0;
      try {
        for await (const message of messages) {
          const payload = decodeJson<DiagnosticsMessage>(message.data);
          // The subject names the file too, for a payload that lacks the field.
          payload.file ||= decodeFileKey(message.subject.split(".").pop() ?? "");
          onMessage(payload);
          replayed++;
          if (!options.follow && (message.info.pending === 0 || replayed >= filesNow)) break;
        }
      } finally {
        // Not awaited: the connection's drain ends the consumer in any case.
        void messages.close().catch(() => {});
      }
    })();
    return { finished, close };
  } catch (error) {
    await close();
    throw error;
  }
}
