// The shipped images, built with buildah from their Dockerfiles (layers cached between runs).
import { existsSync } from "node:fs";
import { imageSizeMb, podman, run } from "./podman.js";
import { REPO_ROOT } from "./repo.js";

export interface ImageSpec {
  tag: string;
  dockerfile: string;
  target?: string;
}

export const GATEWAY_IMAGE: ImageSpec = {
  tag: "localhost/lspmesh/gateway:local",
  dockerfile: "deploy/docker/gateway.Dockerfile",
};
export const RUNNER_TYPESCRIPT_IMAGE: ImageSpec = {
  tag: "localhost/lspmesh/runner-typescript:local",
  dockerfile: "deploy/docker/runner.Dockerfile",
  target: "runner-typescript",
};
/** Go (golang-go, gopls) and C/C++ (clangd) from Debian packages, on the same base as runner-typescript. */
export const RUNNER_GO_IMAGE: ImageSpec = {
  tag: "localhost/lspmesh/runner-go:local",
  dockerfile: "deploy/docker/runner.Dockerfile",
  target: "runner-go",
};
export const RUNNER_CPP_IMAGE: ImageSpec = {
  tag: "localhost/lspmesh/runner-cpp:local",
  dockerfile: "deploy/docker/runner.Dockerfile",
  target: "runner-cpp",
};

const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

export async function buildImages(images: readonly ImageSpec[]): Promise<void> {
  // npm behind a TLS-intercepting proxy: the CA bundle as a build secret (never in a layer).
  const secret = existsSync(CA_BUNDLE) ? ["--secret", `id=ca-certificates,src=${CA_BUNDLE}`] : [];
  for (const image of images) {
    const started = Date.now();
    await run("buildah", [
      "bud",
      "--isolation",
      "chroot",
      "--layers",
      ...secret,
      "-f",
      image.dockerfile,
      ...(image.target ? ["--target", image.target] : []),
      "-t",
      image.tag,
      REPO_ROOT,
    ]);
    console.log(`built ${image.tag} in ${seconds(started)}: ${await imageSizeMb(image.tag)} MB`);
  }
  // Layers of earlier builds no image uses any more; a day's worth stays as the build cache.
  await podman("image", "prune", "--force", "--filter", "until=24h");
}
