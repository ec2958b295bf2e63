// Renders the shipped kustomize overlays with `kubectl kustomize` (kustomize built into kubectl),
// as a cluster would receive them.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { repoPath } from "./repo.js";

export const KUSTOMIZE_DIR = repoPath("deploy/kustomize");

/** A rendered Kubernetes object (the fields the checks read). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered YAML, checked field by field by the tests.
  [field: string]: any;
}

const KUBECTL = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find(existsSync) ?? "kubectl";

/** Every overlay directory under deploy/kustomize/overlays, by name. */
export function overlays(): string[] {
  return readdirSync(join(KUSTOMIZE_DIR, "overlays"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The objects `kubectl kustomize <dir>` renders (dir relative to deploy/kustomize). */
export function render(dir: string): KubeObject[] {
  let text: string;
  try {
    text = execFileSync(KUBECTL, ["kustomize", join(KUSTOMIZE_DIR, dir)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stderr, code } = error as { stderr?: string; code?: string };
    if (code === "ENOENT") throw new Error("kubectl is not installed: apt-get install kubectl (or put it on PATH)");
    throw new Error(`kubectl kustomize ${dir} failed: ${stderr ?? String(error)}`);
  }
  return parseAllDocuments(text)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/**
 * The object a `kubectl create …` command makes, without a cluster (`--dry-run=client -o yaml`):
 * e.g. the Secrets docs/deploy.md has the operator create.
 */
export function kubectlCreate(args: readonly string[], cwd?: string): KubeObject {
  const text = execFileSync(KUBECTL, ["create", ...args, "--dry-run=client", "-o", "yaml"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    ...(cwd ? { cwd } : {}),
  });
  const object = parseAllDocuments(text)[0]?.toJS() as KubeObject;
  delete (object.metadata as Record<string, unknown>).creationTimestamp;
  return object;
}

/** Deployments and StatefulSets: the objects that run pods. */
export function workloads(objects: KubeObject[]): KubeObject[] {
  return objects.filter((object) => ["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"].includes(object.kind));
}
