// The hardening every lspmesh workload must have: Pod Security "restricted" (non-root, no
// privilege escalation, every capability dropped, seccomp RuntimeDefault, only safe volume types,
// no host namespaces or ports), plus a read-only root filesystem, probes, requests and a memory
// limit, no Kubernetes API token, and pinned images.
import type { KubeObject } from "./kustomize.js";

/** Volume types Pod Security "restricted" admits. */
const RESTRICTED_VOLUMES = [
  "configMap",
  "secret",
  "emptyDir",
  "persistentVolumeClaim",
  "projected",
  "downwardAPI",
  "csi",
  "ephemeral",
];

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

/** Every problem of one workload (Deployment, StatefulSet, …); empty when it is hardened. */
export function hardeningProblems(workload: KubeObject): string[] {
  const name = `${workload.kind} ${workload.metadata.name}`;
  const pod: Json =
    workload.kind === "CronJob" ? workload.spec?.jobTemplate?.spec?.template?.spec : workload.spec?.template?.spec;
  if (!pod) return [`${name}: no pod template`];
  const problems: string[] = [];
  const podSecurity: Json = pod.securityContext ?? {};
  for (const field of ["hostNetwork", "hostPID", "hostIPC"]) {
    if (pod[field]) problems.push(`${name}: ${field} is set`);
  }
  if (pod.automountServiceAccountToken !== false) {
    problems.push(`${name}: automountServiceAccountToken is not false (no lspmesh pod calls the Kubernetes API)`);
  }
  for (const volume of pod.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== "name");
    if (!type || !RESTRICTED_VOLUMES.includes(type)) problems.push(`${name}: volume ${volume.name} is ${type}`);
  }
  const containers: Json[] = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
  for (const container of containers) {
    const at = `${name} container ${container.name}`;
    const security: Json = container.securityContext ?? {};
    const effective = (field: string) => security[field] ?? podSecurity[field];
    if (effective("runAsNonRoot") !== true) problems.push(`${at}: runAsNonRoot is not true`);
    if (effective("runAsUser") === 0) problems.push(`${at}: runs as uid 0`);
    if (security.privileged) problems.push(`${at}: privileged`);
    if (security.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
    if (!(security.capabilities?.drop ?? []).includes("ALL")) problems.push(`${at}: capabilities are not all dropped`);
    if ((security.capabilities?.add ?? []).length > 0) problems.push(`${at}: adds capabilities`);
    if (security.readOnlyRootFilesystem !== true) problems.push(`${at}: the root filesystem is not read-only`);
    if (effective("seccompProfile")?.type !== "RuntimeDefault") {
      problems.push(`${at}: seccompProfile is not RuntimeDefault`);
    }
    for (const port of container.ports ?? []) {
      if (port.hostPort) problems.push(`${at}: hostPort ${port.hostPort}`);
    }
    const isInit = (pod.initContainers ?? []).includes(container);
    if (!isInit) {
      if (!container.readinessProbe) problems.push(`${at}: no readinessProbe`);
      if (!container.livenessProbe) problems.push(`${at}: no livenessProbe`);
    }
    const resources: Json = container.resources ?? {};
    if (!resources.requests?.cpu) problems.push(`${at}: no CPU request`);
    if (!resources.requests?.memory) problems.push(`${at}: no memory request`);
    if (!resources.limits?.memory) problems.push(`${at}: no memory limit`);
    const image = String(container.image ?? "");
    const tag = image.includes("@") ? "digest" : image.split("/").pop()?.split(":")[1];
    if (!tag || tag === "latest") problems.push(`${at}: image ${image} is not pinned`);
  }
  return problems;
}
