// A workspace's diagnostics from NATS: the JetStream stream LSPMESH_DIAG keeps the latest message
// of every file (`lspmesh.diag.<tenant>.<workspace>.<fileKey>`). An ordered consumer with
// deliver-last-per-subject replays the current state of every file, then follows live changes.
import {
  DIAGNOSTICS_STREAM,
  DiagnosticsConsumer,
  type DiagnosticsMessage,
  decodeFileKey,
  decodeJson,
  diagnosticsWildcard,
  NATS_CONNECTION_OPTIONS,
  type NatsClientAuth,
  natsConnectOptions,
  natsServers,
} from "@lspmesh/events";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { CheckError } from "../check/source.js";

export interface FeedOptions {
  natsUrl: string;
  /** Credentials: the tenant's subscriber identity (`ci-<tenant>`), which may read only its own subjects. */
  auth?: NatsClientAuth;
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
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: natsServers(options.natsUrl),
      name: "lspmesh-diagnostics-watch",
      ...natsConnectOptions(options.auth),
      // A lost NATS node: on to another of the cluster's URLs, the consumer made again there.
      ...NATS_CONNECTION_OPTIONS,
    });
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
    // Only a consumer filtered to the tenant's subjects: a tenant's NATS identity may not read the
    // stream's subject list (it names other tenants' files).
    const consumer = await DiagnosticsConsumer.open(nc, { filter: subjects, start: "latest-per-file" }).catch(
      (error: Error) => {
        throw new CheckError(
          /not found/i.test(error.message)
            ? `NATS at ${options.natsUrl} has no stream ${DIAGNOSTICS_STREAM}: no runner has published diagnostics there yet`
            : /permission|authoriz/i.test(error.message)
              ? `NATS refused to let this identity read ${subjects}: use the credentials of tenant '${options.tenant}' (user ci-${options.tenant})`
              : `cannot read the stream ${DIAGNOSTICS_STREAM}: ${error.message}`,
        );
      },
    );
    const filesNow = consumer.pendingAtStart;
    if (!options.follow && filesNow === 0) {
      await consumer.close();
      return { finished: Promise.resolve(), close };
    }
    const messages = consumer;
    // The server may end the connection for good (credentials revoked or expired, account
    // changed): the feed ends with the reason, rather than waiting for messages that never come.
    // A revocation or an expiry is said by the server before it closes: stop at once, not after
    // the client's reconnect attempts.
    let refusal: Error | undefined;
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "error" && /revoked|expired|authori[sz]ation/i.test(String(status.error))) {
          refusal = status.error;
          await nc.close();
        }
      }
    })().catch(() => {});
    const refused = nc.closed().then((error) => {
      const reason = error ?? refusal;
      if (reason && !closing)
        throw new CheckError(
          `NATS closed the connection: ${reason.message}; if the credentials were revoked or expired, get new ones (lspmesh admin creds ci ${options.tenant})`,
        );
    });
    const replay = (async () => {
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
    const finished = Promise.race([replay, refused]);
    return { finished, close };
  } catch (error) {
    await close();
    throw error;
  }
}
