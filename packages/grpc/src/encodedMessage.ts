// A message already in protobuf binary. A handler that relays another process's answer returns
// one, and the server writes its bytes as they are: no decode and re-encode in between.
import { create, type DescMessage, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";

export class EncodedMessage {
  constructor(readonly bytes: Uint8Array) {}
}

/** The answer as protobuf binary: an EncodedMessage's own bytes, anything else encoded. */
export function answerBytes(schema: DescMessage, answer: unknown): Uint8Array {
  if (answer instanceof EncodedMessage) return answer.bytes;
  return toBinary(schema, create(schema, answer as MessageInitShape<DescMessage>));
}

/** The answer as a message: an EncodedMessage decoded, anything else completed with defaults. */
export function answerMessage(schema: DescMessage, answer: unknown): unknown {
  if (answer instanceof EncodedMessage) return fromBinary(schema, answer.bytes);
  return create(schema, answer as MessageInitShape<DescMessage>);
}
