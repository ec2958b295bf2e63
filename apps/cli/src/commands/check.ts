// `lspmesh check`: diagnostics for CI, with an exit code. 0 passed; 1 new findings at or above
// --fail-on, or files without fresh diagnostics (unless --allow-incomplete); 2 usage or
// infrastructure errors (bad flags, git failures, unreachable gateway, a crashed language server).

import { writeFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import { closeOnSignals } from "@lspmesh/service-kit";
import { Cleanup } from "../check/cleanup.js";
import { render } from "../check/formats/index.js";
import { parseCheckArgs } from "../check/options.js";
import { progressLine, wantsColor } from "../check/progress.js";
import { runCheck } from "../check/runCheck.js";
import { CheckError } from "../check/source.js";
import { UsageError, usageHint } from "../usage.js";
import { CLI_VERSION } from "./version.js";

export const HELP = `usage: lspmesh check [what] [--base REF] [options]

What to check (default: every file of the workspace):
  --files PATH…            these files (relative to --dir); --files - reads paths from stdin
  --changed-since REF      files changed since REF (its merge base with HEAD), renames followed,
                           deleted files left out; uncommitted and untracked files included

Introduced vs existing:
  --base REF               also check REF (its merge base with HEAD) and report findings as new,
                           fixed or unchanged; only new ones can fail the check

Options:
  --dir DIR                the checkout to check (default .)
  --fail-on LEVEL          error | warning | info (default error): new findings at or above it fail
  --format FORMAT          stdout format: text (default), json, sarif, github, codequality, summary-md
  --report FORMAT:FILE     also write FORMAT to FILE (repeatable), e.g. --report sarif:lspmesh.sarif
  --summary-md FILE        a Markdown summary for a PR comment (same as --report summary-md:FILE)
  --timeout DURATION       overall limit (default 300s; e.g. 90s, 10m); files without fresh
                           diagnostics by then are incomplete
  --allow-incomplete       incomplete files do not fail the check
  --include-hints          also report hints (editor suggestions such as unused variables)
  --languages FILE         JSON overriding or adding language servers (docs/languages.md)

Through a gateway instead of local language servers:
  --gateway URL            the gateway's MCP endpoint, e.g. https://lspmesh.example.com/mcp
  --workspace ID           the workspace holding this checkout (optional when the token has one)
  --token-env NAME         environment variable holding the token (default LSPMESH_TOKEN)
  --base-workspace ID      with --base: the workspace holding the base checkout

Exit codes: 0 passed · 1 failed or incomplete · 2 usage or infrastructure error.
See docs/ci.md for GitHub Actions and GitLab CI examples.`;

/** How long a finished check may take to let go of its last sockets before exiting anyway, in ms. */
const EXIT_GRACE_MS = 5_000;

export async function runCheckCommand(args: string[]): Promise<void> {
  const exitCode = await check(args);
  process.exitCode = exitCode;
  // Everything was closed; should a straggling handle hold the loop open, leave anyway.
  setTimeout(() => process.exit(exitCode), EXIT_GRACE_MS).unref();
}

async function check(args: string[]): Promise<number> {
  try {
    const options = parseCheckArgs(args, process.env);
    if (options.help) {
      await write(`${HELP}\n`);
      return 0;
    }
    const cleanup = new Cleanup();
    // Ctrl-C (or a cancelled CI job's SIGTERM): stop the language servers, drop the base export.
    closeOnSignals(() => cleanup.close(), {
      log: (message) => process.stderr.write(`lspmesh check: ${message}\n`),
      exitCode: 130,
    });
    const { report, pathPrefix } = await runCheck(options, {
      cleanup,
      readStdin: () => text(process.stdin),
      progress: progressLine(),
      log: process.env.LSPMESH_LOG_LEVEL === "debug" ? (line) => process.stderr.write(`${line}\n`) : undefined,
      toolVersion: CLI_VERSION,
    });
    const color = wantsColor(process.stdout, process.env);
    for (const { format, file } of options.reports) {
      await writeFile(file, render(format, report, { color: false, pathPrefix })).catch((error: Error) => {
        throw new CheckError(`cannot write the ${format} report to ${file}: ${error.message}`);
      });
    }
    await write(render(options.format, report, { color: options.format === "text" && color, pathPrefix }));
    return report.exitCode;
  } catch (error) {
    if (error instanceof UsageError || error instanceof CheckError) {
      process.stderr.write(`lspmesh check: ${error.message}\n`);
      if (error instanceof UsageError) process.stderr.write(`${usageHint("check", HELP)}\n`);
      return 2;
    }
    // Anything else is a bug, still an infrastructure failure to CI: exit 2, never 1.
    process.stderr.write(`lspmesh check: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 2;
  }
}

function write(output: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(output, (error) => (error ? reject(error) : resolve())));
}
