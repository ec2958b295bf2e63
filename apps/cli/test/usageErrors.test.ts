// Every command answers a mistake on its command line the same way: exit 2, the mistake and the
// command's usage line on stderr, never a stack trace, and nothing started.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { runCli } from "./cli.js";

const dir = mkdtempSync(join(tmpdir(), "lspmesh-usage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACK_FRAME = /^\s+at .+[(:]\d+/m;

// Each case is its own short-lived process (most of its time is Node loading the CLI): they run
// side by side, up to vitest's maxConcurrency (5) at once.

test.concurrent.each([
  ["serve", ["--bogus"], "unknown option '--bogus'"],
  ["serve", [dir, "--port", "abc"], "invalid port 'abc'"],
  ["serve", [dir, "--allow-origin", "localhost"], "invalid --allow-origin 'localhost'"],
  ["mcp", ["--bogus"], "unknown option '--bogus'"],
  ["mcp", [], "give the project folder"],
  ["mcp", [dir, "--workspace", "Bad!"], "invalid workspace id 'Bad!'"],
  ["gateway", ["--bogus"], "unknown option '--bogus'"],
  ["gateway", ["--runners", "127.0.0.1:1", "--port", "abc"], "abc"],
  ["runner", ["--bogus"], "unknown option '--bogus'"],
  ["runner", ["--listen", "nope"], "invalid listen address 'nope'"],
  ["check", ["--bogus"], "unknown option '--bogus'"],
  ["check", ["--format", "nope"], "unknown format 'nope'"],
  ["diagnostics", ["--bogus"], "unknown option '--bogus'"],
  ["diagnostics", ["--format", "nope"], "--format must be text or json"],
  ["version", ["--bogus"], "unknown option '--bogus'"],
  ["grpc-secrets", ["--runners", "r0"], "give the gateways' key with --key-file"],
  ["grpc-secrets", ["--key-file", join(dir, "missing-key")], "give the runners' ids with --runners"],
  ["grpc-secrets", ["--key-file", join(dir, "missing-key"), "--runners", "r0"], "cannot read the gateways' key"],
  ["grpc-secrets", ["--key-file", join(dir, "missing-key"), "--runners", "../x"], "invalid runner id '../x'"],
  ["nats-auth", ["--tenants", "acme"], "give the runners' ids with --runners"],
  ["nats-auth", ["--runners", "r0:Acme"], "invalid tenant 'Acme'"],
  ["runner", ["--listen", "0.0.0.0:7421"], "refusing to listen on 0.0.0.0:7421 without credentials"],
])("lspmesh %s %j: exit 2, the mistake and the usage line, no stack trace", async (command, args, mistake) => {
  const result = await runCli([command, ...args], { cwd: dir });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(mistake);
  expect(result.stderr).toContain(`usage: lspmesh ${command === "version" ? "--version" : command}`);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  expect(result.stdout).toBe("");
});

test.concurrent.each([
  ["mcp", [dir]],
  ["check", ["--dir", dir]],
  ["version", []],
])("lspmesh %s with a languages file that cannot be read: exit 2 naming the file", async (command, args) => {
  const missing = join(dir, "missing.json");
  const result = await runCli([command, ...args, "--languages", missing], { cwd: dir });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`languages file ${missing} is invalid`);
  expect(result.stderr).not.toMatch(STACK_FRAME);
});

test.concurrent("--version names lspmesh, Node.js and each language server with its version or install hint", async () => {
  const result = await runCli(["--version"], { cwd: dir });
  expect(result.code).toBe(0);
  const [first, second, ...servers] = result.stdout.trim().split("\n");
  expect(first).toMatch(/^lspmesh \d+\.\d+\.\d+ \(Node\.js v\d+\.\d+\.\d+\)$/);
  expect(second).toBe("language servers:");
  expect(servers).toContainEqual(
    expect.stringMatching(/^ {2}typescript +typescript-language-server \d+\.\d+\.\d+ \(TypeScript \d/),
  );
  expect(servers).toContainEqual(expect.stringMatching(/^ {2}python +pyright \d+\.\d+\.\d+$/));
  for (const line of servers) expect(line).toMatch(/^ {2}\S+ +(\S.*)$/);
});
