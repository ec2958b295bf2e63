// `lspmesh diagnostics`: a workspace's current diagnostics from NATS, file by file, and with
// --watch every change after that, for dashboards and bots that stay connected.
import { DEFAULT_WORKSPACE, ID_PATTERN, LOCAL_TENANT } from "@lspmesh/proto";
import { closeOnSignals } from "@lspmesh/service-kit";
import { CheckError } from "../check/source.js";
import { cliNatsAuth } from "../natsCredentials.js";
import { parseCommandFlags, UsageError } from "../usage.js";
import { openDiagnosticsFeed } from "../watch/diagnosticsFeed.js";
import { renderMessageJson, renderMessageText } from "../watch/renderMessage.js";

export const HELP = `usage: lspmesh diagnostics [--watch] [--nats URL] [--tenant T] [--workspace W] [--format text|json]

Prints the latest diagnostics of every file of a workspace, as published by its runners on NATS
(stream LSPMESH_DIAG, subjects lspmesh.diag.<tenant>.<workspace>.>), then exits; with --watch it
keeps printing each file's diagnostics whenever they change, until Ctrl-C.

  --nats URL         NATS server, or a cluster's URLs comma-separated (default $LSPMESH_NATS_URL,
                     else nats://127.0.0.1:4222)
  --nats-creds FILE  NATS credentials file (default $LSPMESH_NATS_CREDS; or LSPMESH_NATS_USER and
                     LSPMESH_NATS_PASSWORD, or LSPMESH_NATS_TOKEN): the tenant's subscriber identity
  --tenant T         tenant id (default local)
  --workspace W      workspace id (default default)
  --format FORMAT    text (default), or json: one DiagnosticsMessage per line`;

function parseFlags(args: string[]) {
  try {
    return parseCommandFlags({
      args,
      allowPositionals: true,
      options: {
        watch: { type: "boolean", short: "w" },
        nats: { type: "string" },
        "nats-creds": { type: "string" },
        tenant: { type: "string" },
        workspace: { type: "string" },
        format: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function runDiagnosticsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args);
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const tenant = values.tenant ?? LOCAL_TENANT;
  const workspace = values.workspace ?? DEFAULT_WORKSPACE;
  for (const [flag, id] of [
    ["--tenant", tenant],
    ["--workspace", workspace],
  ] as const) {
    if (!ID_PATTERN.test(id)) throw new UsageError(`${flag} '${id}' is not an id: use a-z, 0-9, '_' and '-'`);
  }
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json") throw new UsageError(`--format must be text or json (got '${format}')`);
  const auth = await cliNatsAuth(values["nats-creds"]);

  const print = format === "json" ? renderMessageJson : renderMessageText;
  try {
    const feed = await openDiagnosticsFeed(
      {
        natsUrl: values.nats ?? process.env.LSPMESH_NATS_URL ?? "nats://127.0.0.1:4222",
        auth,
        tenant,
        workspace,
        follow: values.watch ?? false,
      },
      (message) => process.stdout.write(print(message)),
    );
    closeOnSignals(() => feed.close(), {
      log: (message) => process.stderr.write(`lspmesh diagnostics: ${message}\n`),
    });
    await feed.finished;
    await feed.close();
  } catch (error) {
    if (!(error instanceof CheckError)) throw error;
    // NATS unreachable, no stream: an infrastructure failure, exit 2 like a usage error.
    process.stderr.write(`lspmesh diagnostics: ${error.message}\n`);
    process.exitCode = 2;
  }
}
