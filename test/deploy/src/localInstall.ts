// The local overlay made ready to play, the way docs/deploy.md installs it: images built with
// buildah from the shipped Dockerfiles (stand-in base images), the overlay rendered with the
// runner pool at the replicas asked for, what the operator makes before deploying (the NATS trust,
// nats-jwt.conf and the gateway's credential from `lspmesh nats-auth --jwt`, the gRPC secrets from
// `lspmesh grpc-secrets`), each made into the object `kubectl create` would make, and everything
// translated for `podman kube play` (podmanKube.ts).
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildImages, GATEWAY_IMAGE, RUNNER_TYPESCRIPT_IMAGE } from "./images.js";
import { type KubeObject, kubectlCreate, render, workloads } from "./kustomize.js";
import { run } from "./podman.js";
import { forPodman } from "./podmanKube.js";
import { repoPath } from "./repo.js";
import { dockerfileBase, ensureNatsStandIn, ensureNodeStandIn, fullImageName } from "./standIns.js";

/** The `lspmesh` command (built by `npm run test:deploy`, which builds everything first). */
const CLI = repoPath("apps/cli/bin/lspmesh.js");
/** The runner pool the local overlay runs. */
export const RUNNER_POOL = "lspmesh-runner-typescript";
/** Copies of what lspmesh creates in JetStream: the local overlay's three NATS servers. */
export const JETSTREAM_REPLICAS = "3";

/** `lspmesh ARGS…` (the built CLI) with LSPMESH_JETSTREAM_REPLICAS=3; its output, or a rejection with it. */
export const lspmesh = (...args: string[]) =>
  run("env", [`LSPMESH_JETSTREAM_REPLICAS=${JETSTREAM_REPLICAS}`, process.execPath, CLI, ...args], { combined: true });

export interface LocalObjects {
  /** The NATS trust directory `lspmesh nats-auth --jwt` wrote (admin.creds, the trust for minting). */
  trust: string;
  /** The NATS servers' Deployments and the ConfigMaps they mount: played first. */
  nats: KubeObject[];
  /** Everything else: the gateway, the runners and their ConfigMaps. */
  rest: KubeObject[];
}

/** Stand-in base images and the shipped images (layers cached by buildah between runs). */
export async function buildLocalImages(objects: KubeObject[]): Promise<void> {
  const nodeBase = dockerfileBase("deploy/docker/gateway.Dockerfile");
  if (dockerfileBase("deploy/docker/runner.Dockerfile") !== nodeBase)
    throw new Error("the gateway and runner Dockerfiles no longer share a base image");
  await ensureNodeStandIn(nodeBase);
  const nats = workloads(objects).find((w) => w.metadata.labels?.["app.kubernetes.io/component"] === "nats")!;
  await ensureNatsStandIn(fullImageName(nats.spec.template.spec.containers[0].image as string), nodeBase);
  await buildImages([GATEWAY_IMAGE, RUNNER_TYPESCRIPT_IMAGE]);
}

/** The local overlay with `runners` TypeScript runners, rendered; `env` replaces or adds runner variables. */
export function renderLocal(
  runners: number,
  env: Readonly<Record<string, string>> = {},
  gatewayEnv: Readonly<Record<string, string>> = {},
): KubeObject[] {
  const objects = render("overlays/local");
  const pool = objects.find((o) => o.kind === "StatefulSet" && o.metadata.name === RUNNER_POOL)!;
  pool.spec.replicas = runners;
  withEnv(pool.spec.template.spec.containers[0], env);
  const gateway = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "lspmesh-gateway");
  if (gateway) withEnv(gateway.spec.template.spec.containers[0], gatewayEnv);
  return objects;
}

/** The container's variables, `env` replacing or adding. */
function withEnv(container: { env?: Array<{ name: string }> }, env: Readonly<Record<string, string>>): void {
  container.env = [
    ...(container.env ?? []).filter((variable) => !(variable.name in env)),
    ...Object.entries(env).map(([name, value]) => ({ name, value })),
  ];
}

/** What the operator makes (docs/deploy.md, steps 2 and 3), then the podman objects in two plays. */
export async function localObjects(work: string, objects: KubeObject[]): Promise<LocalObjects> {
  const trust = join(work, "trust");
  await lspmesh("nats-auth", "--jwt", "--out", trust, "--resolver-dir", "/data/jwt");
  const grpcKey = randomBytes(24).toString("hex");
  writeFileSync(join(work, "grpc-key"), grpcKey, { mode: 0o600 });
  await lspmesh(
    "grpc-secrets",
    "--key-file",
    join(work, "grpc-key"),
    "--runners",
    "typescript",
    "--out",
    join(work, "grpc"),
  );
  const operatorMade = [
    kubectlCreate(["configmap", "lspmesh-nats-jwt", `--from-file=${join(trust, "nats-jwt.conf")}`]),
    kubectlCreate(["secret", "generic", "lspmesh-nats-gateway", `--from-file=${join(trust, "gateway.creds")}`]),
    kubectlCreate(["secret", "generic", "lspmesh-grpc", `--from-literal=secret=${grpcKey}`]),
    kubectlCreate(["secret", "generic", "lspmesh-grpc-runners", `--from-file=${join(work, "grpc")}`]),
  ];
  const runnable = forPodman([...objects, ...operatorMade]);
  const servers = runnable.filter(
    (o) => o.kind === "Deployment" && o.metadata.labels?.["app.kubernetes.io/component"] === "nats",
  );
  const mounted = new Set(
    servers.flatMap((s) =>
      (s.spec.template.spec.volumes ?? []).flatMap((v: { configMap?: { name: string } }) =>
        v.configMap ? [v.configMap.name] : [],
      ),
    ),
  );
  const nats = runnable.filter((o) => servers.includes(o) || (o.kind === "ConfigMap" && mounted.has(o.metadata.name)));
  return { trust, nats, rest: runnable.filter((o) => !nats.includes(o)) };
}

/** The runner pool's NATS credential as podman's form of the Secret `lspmesh admin creds runner` makes. */
export async function runnerCredentials(work: string, trust: string, admin: string[]): Promise<KubeObject[]> {
  const file = join(work, "runner.creds");
  await lspmesh("admin", "creds", "runner", "typescript", "--out", file, "--nats-trust", trust, ...admin);
  return forPodman([
    kubectlCreate(["secret", "generic", "lspmesh-nats-runner-typescript", `--from-file=runner.creds=${file}`]),
  ]);
}
