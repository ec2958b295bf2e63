// Runs the real `lspmesh` binary as a child process, the way CI runs it.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../bin/lspmesh.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv } = { cwd: process.cwd() },
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? "");
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}
