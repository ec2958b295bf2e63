// The NATS credentials of a CLI command: a --nats-creds file, else the LSPMESH_NATS_* variables.
import { readFile } from "node:fs/promises";
import { type NatsClientAuth, natsClientAuth } from "@lspmesh/events";
import { UsageError } from "./usage.js";

/** Throws a UsageError for an unreadable file or an incomplete set of variables. */
export async function cliNatsAuth(credsFile: string | undefined): Promise<NatsClientAuth> {
  if (credsFile)
    await readFile(credsFile).catch(() => {
      throw new UsageError(`cannot read the NATS credentials file '${credsFile}'`);
    });
  try {
    return credsFile
      ? { ...natsClientAuth(() => undefined), credentials: { kind: "creds", file: credsFile } }
      : natsClientAuth((name) => process.env[name] || undefined);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
