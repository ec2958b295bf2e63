// `lspmesh grpc-secrets`: each runner's own gRPC secret, derived from the gateways' key, so that a
// secret stolen from one runner opens no other (gateways run with LSPMESH_GRPC_PER_RUNNER_SECRETS=1
// and the key in LSPMESH_GRPC_SECRET_FILE; each runner with its own secret in that variable).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deriveRunnerSecret } from "@lspmesh/grpc";
import { SecretFile, SecretFileError } from "@lspmesh/service-kit";
import { parseCommandFlags, UsageError } from "../usage.js";

export const HELP = `usage: lspmesh grpc-secrets --key-file FILE --runners ID[,…] [--out DIR]

Derives each runner's gRPC secret from the gateways' key (HMAC-SHA256 of the runner id):
  --key-file FILE   the key the gateways hold (their LSPMESH_GRPC_SECRET_FILE, with
                    LSPMESH_GRPC_PER_RUNNER_SECRETS=1); at least 16 characters
  --runners ID,…    runner ids as gateways know them: LSPMESH_RUNNER_ID (a StatefulSet pod
                    name), or host:port for a static runner list
  --out DIR         write one file per runner id (mode 0600), e.g. for
                    kubectl create secret generic lspmesh-grpc-POOL --from-file=DIR
Without --out, prints "<id> <secret>" lines. See docs/security.md.`;

/** Runner ids: a registry id, or host:port (a static list). */
const RUNNER_ID = /^[A-Za-z0-9][A-Za-z0-9_=.:-]{0,127}$/;

export async function runGrpcSecretsCommand(args: string[]): Promise<void> {
  const { values } = parseCommandFlags({
    args,
    options: {
      "key-file": { type: "string" },
      runners: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (!values["key-file"]) throw new UsageError("give the gateways' key with --key-file FILE");
  const runners = (values.runners ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  if (runners.length === 0) throw new UsageError("give the runners' ids with --runners (their LSPMESH_RUNNER_ID)");
  for (const id of runners) {
    if (!RUNNER_ID.test(id))
      throw new UsageError(`invalid runner id '${id.slice(0, 140)}': letters, digits, '_', '-', '=', '.' or ':'`);
  }
  let key: string;
  try {
    key = new SecretFile(values["key-file"], { what: "the gateways' key" }).value();
  } catch (error) {
    throw error instanceof SecretFileError ? new UsageError(error.message) : error;
  }
  if (!values.out) {
    for (const id of runners) process.stdout.write(`${id} ${deriveRunnerSecret(key, id)}\n`);
    return;
  }
  mkdirSync(values.out, { recursive: true, mode: 0o700 });
  for (const id of runners) {
    const file = join(values.out, id);
    writeFileSync(file, `${deriveRunnerSecret(key, id)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  console.error(`wrote ${runners.length} secret file(s) to ${values.out}`);
}
