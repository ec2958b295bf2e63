// Reading a tenant's diagnostics from the stream LSPMESH_DIAG with only a tenant's permissions.
// The client library's ordered consumer first asks for the stream's info, which a tenant may not
// do (that request can list every subject of the stream, i.e. other tenants' file names). This
// consumer uses only what a tenant identity is granted (natsAuthorization.ts): an ephemeral
// consumer created on the filtered subject (`$JS.API.CONSUMER.CREATE.<stream>.<name>.<filter>`),
// its info, and pulls. Like an ordered consumer it is recreated from the next stream sequence
// when the server loses it (a NATS restart), so a follower neither stops nor repeats itself.
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from "@nats-io/jetstream";
import { type NatsConnection, nanos, nuid } from "@nats-io/transport-node";
import { ORDERED_CONSUME_OPTIONS } from "./natsConnection.js";
import { DIAGNOSTICS_STREAM } from "./subjects.js";

export interface DiagnosticsConsumerOptions {
  /** One subject filter, e.g. `lspmesh.diag.acme.>` (diagnosticsWildcard). */
  filter: string;
  /** Replay the latest message of every file first, or only what is published from now on. */
  start: "latest-per-file" | "new";
}

/** How long the server keeps a consumer nobody pulls from, ms (it is also deleted on close). */
const INACTIVE_THRESHOLD_MS = 5 * 60_000;

/**
 * Quiet time after which a consumer is made again from the next message, whether or not it still
 * sends heartbeats, ms (default 10 000). After the loss of the stream's leader, nats-server 2.9 was seen
 * keeping the R1 consumer alive (heartbeats at its old sequence) but delivering nothing for 20 s
 * and more while the stream moved on; a new consumer delivers at once. An idle follower so
 * replaces its consumer every 10 s (two requests: create the new one, delete the old one).
 */
const RENEW_AFTER_QUIET_MS = 10_000;
/** How often the quiet time is checked, ms (default 1 000). */
const QUIET_CHECK_MS = 1_000;

export class DiagnosticsConsumer implements AsyncIterable<JsMsg> {
  private messagesNow: ConsumerMessages | undefined;
  private name: string;
  private lastSequence = 0;
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly options: DiagnosticsConsumerOptions,
    /** Messages waiting when the consumer was made (the replay's length for latest-per-file). */
    readonly pendingAtStart: number,
    name: string,
  ) {
    this.name = name;
  }

  /** Creates the consumer; rejects (stream missing, permission refused) before anything is read. */
  static async open(nc: NatsConnection, options: DiagnosticsConsumerOptions): Promise<DiagnosticsConsumer> {
    const name = await createConsumer(nc, options.filter, startPolicy(options.start));
    const info = await (await jetstream(nc).consumers.get(DIAGNOSTICS_STREAM, name)).info(true);
    const consumer = new DiagnosticsConsumer(nc, options, info.num_pending, name);
    // "new" starts after the stream's last message now: a consumer made again after an outage
    // resumes from there, so what was published while it was away is not skipped.
    if (options.start === "new") consumer.lastSequence = info.delivered.stream_seq;
    return consumer;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    while (!this.closed) {
      let deliveredAt = Date.now();
      let watchdog: NodeJS.Timeout | undefined;
      try {
        const consumer = await jetstream(this.nc).consumers.get(DIAGNOSTICS_STREAM, this.name);
        const messages = await consumer.consume(ORDERED_CONSUME_OPTIONS);
        this.messagesNow = messages;
        void (async () => {
          for await (const status of messages.status()) {
            if (
              status.type === "consumer_deleted" ||
              status.type === "consumer_not_found" ||
              status.type === "heartbeats_missed"
            ) {
              messages.stop();
            }
          }
        })().catch(() => {});
        // Quiet for RENEW_AFTER_QUIET_MS, whatever the library reports (heartbeats of a stalled
        // consumer, or nothing at all: a consumer lost with a NATS server was seen pulled from for
        // 90 s without a status that said so), the consumer is made again from the next message.
        watchdog = setInterval(() => {
          if (Date.now() - deliveredAt >= RENEW_AFTER_QUIET_MS) messages.stop();
        }, QUIET_CHECK_MS);
        watchdog.unref();
        for await (const message of messages) {
          deliveredAt = Date.now();
          this.lastSequence = message.info.streamSequence;
          yield message;
        }
      } catch {
        // The server is away or lost the consumer (asking for it timed out, or it is gone).
      } finally {
        clearInterval(watchdog);
      }
      // A closed connection (closed by its owner, or refused by the server) gets no new consumer.
      if (this.closed || this.nc.isClosed()) return;
      // Anything else that ended the messages is a lost consumer, whether or not a status said so
      // first: the library may end them (its consumer gone with a NATS server) before the status
      // loop above runs, and returning here would end the follower silently.
      // A new consumer from the next message on (after a NATS restart the old one is gone; a quiet
      // one is deleted once its successor exists).
      await this.recreate();
    }
  }

  /** Stops reading and deletes the consumer. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.messagesNow?.stop();
    const manager = await jetstreamManager(this.nc).catch(() => undefined);
    await manager?.consumers.delete(DIAGNOSTICS_STREAM, this.name).catch(() => {});
  }

  private async recreate(): Promise<void> {
    const previous = this.name;
    for (let attempt = 0; !this.closed && !this.nc.isClosed(); attempt++) {
      try {
        this.name = await createConsumer(
          this.nc,
          this.options.filter,
          this.lastSequence > 0 || this.options.start === "new"
            ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.lastSequence + 1 }
            : startPolicy(this.options.start),
        );
        // Gone already after an outage; a quiet one would otherwise live out its inactive threshold.
        void jetstreamManager(this.nc)
          .then((manager) => manager.consumers.delete(DIAGNOSTICS_STREAM, previous))
          .catch(() => {});
        return;
      } catch {
        // NATS still coming back: try again shortly (ORDERED_CONSUME_OPTIONS' cadence).
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** attempt)));
      }
    }
  }
}

function startPolicy(start: DiagnosticsConsumerOptions["start"]) {
  return { deliver_policy: start === "new" ? DeliverPolicy.New : DeliverPolicy.LastPerSubject };
}

async function createConsumer(
  nc: NatsConnection,
  filter: string,
  policy: { deliver_policy: DeliverPolicy; opt_start_seq?: number },
): Promise<string> {
  const name = nuid.next();
  const manager = await jetstreamManager(nc);
  await manager.consumers.add(DIAGNOSTICS_STREAM, {
    name,
    filter_subject: filter,
    ...policy,
    ack_policy: AckPolicy.None,
    inactive_threshold: nanos(INACTIVE_THRESHOLD_MS),
    mem_storage: true,
    num_replicas: 1,
  });
  return name;
}
