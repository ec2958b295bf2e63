// podman and buildah from the deployment test, with the test's own containers.conf.
import { spawn } from "node:child_process";
import { repoPath } from "./repo.js";

export const CONTAINERS_CONF = repoPath("test/deploy/podman/containers.conf");
const ENV = { ...process.env, CONTAINERS_CONF };

/**
 * Runs a command to its end and resolves to its stdout (or stdout and stderr as they came, with
 * `combined`); rejects with the tail of its output when it fails.
 */
export function run(
  command: string,
  args: string[],
  options: { input?: Buffer | string; combined?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: ENV, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(options.combined ? output : stdout);
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output.slice(-4000)}`));
    });
    child.stdin.end(options.input);
  });
}

export const podman = (...args: string[]) => run("podman", args);

/** A container's log: its stdout and stderr (where lspmesh services write their JSON lines). */
export const podmanLogs = (container: string, ...options: string[]) =>
  run("podman", ["logs", ...options, container], { combined: true });

/** Names of podman objects of one kind ("pod", "container" with ps -a, "volume", "network"). */
export async function podmanNames(kind: "pod" | "container" | "volume" | "network"): Promise<string[]> {
  const list =
    kind === "container"
      ? await podman("ps", "-a", "--format", "{{.Names}}")
      : await podman(kind, "ls", "--format", kind === "pod" ? "{{.Name}}" : "{{.Name}}");
  return list.split("\n").filter(Boolean);
}

/** An image's size in MB, as podman reports it (uncompressed). */
export async function imageSizeMb(image: string): Promise<number> {
  return Math.round(Number(await podman("image", "inspect", "--format", "{{.Size}}", image)) / 1e6);
}
