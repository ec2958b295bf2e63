// Stand-ins for the public base images the shipped files name (no container registry is
// reachable here): made locally and tagged with those exact names, reused while they exist.
// Test-only: docs/deploy.md says so, and the shipped Dockerfiles and manifests never mention them.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { podman, run } from "./podman.js";
import { repoPath } from "./repo.js";

/** `node:22…` → `docker.io/library/node:22…` (how podman stores a Docker Hub short name). */
export function fullImageName(image: string): string {
  const [first] = image.split("/");
  if (image.includes("/") && (first!.includes(".") || first!.includes(":") || first === "localhost")) return image;
  return `docker.io/${image.includes("/") ? image : `library/${image}`}`;
}

/** The base image a shipped Dockerfile builds on (its `ARG NODE_IMAGE=` default). */
export function dockerfileBase(dockerfile: string): string {
  const match = readFileSync(repoPath(dockerfile), "utf8").match(/^ARG NODE_IMAGE=(\S+)/m);
  if (!match) throw new Error(`${dockerfile} has no ARG NODE_IMAGE`);
  return fullImageName(match[1]!);
}

/** Debian bookworm (debootstrap) with this process's Node 22 and npm, under the base image's name. */
export async function ensureNodeStandIn(image: string): Promise<void> {
  const npmCli = process.env.npm_execpath ?? realpathSync("/usr/bin/npm");
  const npmDir = dirname(dirname(realpathSync(npmCli)));
  await run("bash", [repoPath("test/deploy/scripts/stand-in-base.sh"), image, realpathSync(process.execPath), npmDir]);
}

const NATS_BINARY = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find(existsSync);

/** The machine's nats-server on the Node stand-in, under the NATS image's name. */
export async function ensureNatsStandIn(image: string, base: string): Promise<void> {
  if (!NATS_BINARY) throw new Error("nats-server is not installed (apt-get install nats-server)");
  const version = (await run(NATS_BINARY, ["--version"])).trim();
  const existing = await podman(
    "image",
    "inspect",
    "--format",
    '{{index .Labels "lspmesh.stand-in.nats"}}',
    image,
  ).catch(() => "");
  if (existing.trim() === version) return;
  const context = mkdtempSync(join(tmpdir(), "lspmesh-nats-stand-in-"));
  try {
    copyFileSync(NATS_BINARY, join(context, "nats-server"));
    writeFileSync(
      join(context, "Containerfile"),
      `FROM ${base}\nCOPY nats-server /usr/local/bin/nats-server\nLABEL lspmesh.stand-in.nats="${version}"\n`,
    );
    await run("buildah", ["bud", "--isolation", "chroot", "-t", image, context]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}
