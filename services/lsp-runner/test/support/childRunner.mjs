// A runner in its own process, for tests that kill it: serves one directory as local/default with
// TypeScript and a "stubborn" server that ignores stdin EOF and SIGTERM, never answers, and keeps a
// child of its own. Prints {"address": …} on stdout once listening. Uses the built dist/.
import { LanguageRegistry, SingleWorkspaceLocator, startRunnerServer, typescriptLanguage } from "../../dist/index.js";

const [dir] = process.argv.slice(2);
const stubborn = {
  id: "stubborn",
  extensions: { ".stub": "stubborn" },
  command: "/bin/sh",
  args: ["-c", "trap '' TERM HUP INT; sleep 600 & while :; do wait; done"],
  startTimeoutMs: 600_000,
};
const runner = await startRunnerServer({
  listen: "127.0.0.1:0",
  locator: new SingleWorkspaceLocator(dir, "local", "default"),
  languages: new LanguageRegistry([typescriptLanguage(), stubborn]),
});
process.stdout.write(`${JSON.stringify({ address: runner.address })}\n`);
