// A runner in its own process, for tests that kill it: serves one directory as local/default with
// the built-in languages plus a "stubborn" server (from a languages file) that ignores stdin EOF and
// SIGTERM, never answers, and keeps a child of its own. Prints {"address": …} on stdout once
// listening. Uses the built dist/ through the package's public entry point.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRunner } from "../../dist/index.js";

const [dir] = process.argv.slice(2);
const languagesFile = join(mkdtempSync(join(tmpdir(), "lspmesh-child-runner-")), "languages.json");
writeFileSync(
  languagesFile,
  JSON.stringify({
    languages: {
      stubborn: {
        enabled: true,
        extensions: { ".stub": "stubborn" },
        command: "/bin/sh",
        args: ["-c", "trap '' TERM HUP INT; sleep 600 & while :; do wait; done"],
        startTimeoutMs: 600_000,
      },
    },
  }),
);
const runner = await startRunner({
  listen: "127.0.0.1:0",
  workspaces: { dir, tenant: "local", workspace: "default" },
  languagesFile,
});
process.stdout.write(`${JSON.stringify({ address: runner.address })}\n`);
