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
      let lost = false;
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
              lost = true;
              messages.stop();
            }
          }
        })().catch(() => {});
        for await (const message of messages) {
          this.lastSequence = message.info.streamSequence;
          yield message;
        }
      } catch {
        // The server is away or lost the consumer (asking for it timed out, or it is gone).
        lost = true;
      }
      if (this.closed || !lost) return;
      // A new consumer from the next message on (after a NATS restart the old one is gone).
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
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        this.name = await createConsumer(
          this.nc,
          this.options.filter,
          this.lastSequence > 0 || this.options.start === "new"
            ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.lastSequence + 1 }
            : startPolicy(this.options.start),
        );
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
