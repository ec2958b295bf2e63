// The rendered local overlay as podman 4.3 (Debian bookworm) can run it with `podman kube play`.
// A mechanical translation, nothing else changes (images, commands, env, probes, security
// contexts, resources and volumes stay as rendered):
// - StatefulSet → one Deployment per replica, named as the StatefulSet's pod (`<name>-<n>`), so
//   podman runs pod `<name>-<n>-pod-0` for it (podman runs Pods and Deployments only, and the
//   replicas of one Deployment share its volumes); in each, what the kubelet would fill in: the pod
//   name for `fieldRef: metadata.name`, and `$(VAR)` references in env values, command and args;
// - emptyDir volumes named after their pod (`<pod>-<volume>`): podman makes a named volume of an
//   emptyDir, shared by every pod using that volume name;
// - Secret → ConfigMap with the decoded data, and every reference to it (podman 4.3 mounts a
//   Secret's base64 undecoded and wants JSON for secretKeyRef);
// - container ports go (podman 4.3 publishes every containerPort on the host; pods are reached
//   on the test's network instead), probes naming a port get its number;
// - objects podman does not run (Service, ServiceAccount, PVC: the test makes the volume,
//   NetworkPolicy, PodDisruptionBudget, …) are left out.
import type { KubeObject } from "./kustomize.js";

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

export function forPodman(objects: KubeObject[]): KubeObject[] {
  const out: KubeObject[] = [];
  for (const object of objects) {
    if (object.kind === "ConfigMap") out.push(object);
    else if (object.kind === "Secret") out.push(secretAsConfigMap(object));
    else if (object.kind === "Deployment")
      out.push({ ...object, spec: { ...object.spec, template: pod(object, podmanPodOf(object.metadata.name)) } });
    else if (object.kind === "StatefulSet") out.push(...statefulSetPods(object));
  }
  return out;
}

/** The podman pod that runs a Deployment of forPodman's output (its only replica). */
export function podmanPodOf(deployment: string): string {
  return `${deployment}-pod-0`;
}

/** Each replica of the StatefulSet as a one-pod Deployment named as its pod, `<name>-<n>`. */
function statefulSetPods(statefulSet: KubeObject): KubeObject[] {
  const { replicas = 1, selector } = statefulSet.spec;
  return Array.from({ length: replicas }, (_, ordinal) => {
    const name = `${statefulSet.metadata.name}-${ordinal}`;
    const template = pod(statefulSet, name);
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, "statefulset.kubernetes.io/pod-name": name },
    };
    return {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { ...statefulSet.metadata, name },
      spec: { replicas: 1, selector, template },
    };
  });
}

function secretAsConfigMap(secret: KubeObject): KubeObject {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries((secret.data ?? {}) as Record<string, string>)) {
    data[key] = Buffer.from(value.replace(/\s+/g, ""), "base64").toString("utf8");
  }
  Object.assign(data, secret.stringData ?? {});
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: secret.metadata.name }, data };
}

/** The workload's pod template as podman runs it, for the pod named `podName`. */
function pod(workload: KubeObject, podName: string): Json {
  const template = structuredClone(workload.spec.template);
  const spec = template.spec;
  const renamed = new Map<string, string>();
  for (const volume of spec.volumes ?? []) {
    if (volume.emptyDir) {
      renamed.set(volume.name, `${podName}-${volume.name}`);
      volume.name = `${podName}-${volume.name}`;
    }
    if (!volume.secret) continue;
    const { secretName, items } = volume.secret;
    delete volume.secret;
    volume.configMap = { name: secretName, ...(items ? { items } : {}) };
  }
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    for (const mount of container.volumeMounts ?? []) mount.name = renamed.get(mount.name) ?? mount.name;
    podmanContainer(container, podName);
  }
  return template;
}

function podmanContainer(container: Json, podName: string): void {
  const numbers = new Map<string, number>((container.ports ?? []).map((p: Json) => [p.name, p.containerPort]));
  for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
    const handler = probe?.httpGet ?? probe?.tcpSocket ?? probe?.grpc;
    if (handler && typeof handler.port === "string") handler.port = numbers.get(handler.port);
  }
  delete container.ports;
  const values = new Map<string, string>();
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) variable.valueFrom = { configMapKeyRef: ref };
    if (variable.valueFrom?.fieldRef?.fieldPath === "metadata.name") {
      delete variable.valueFrom;
      variable.value = podName;
    }
    if (typeof variable.value === "string") {
      variable.value = expand(variable.value, values);
      values.set(variable.name, variable.value);
    }
  }
  if (container.command) container.command = container.command.map((part: string) => expand(part, values));
  if (container.args) container.args = container.args.map((part: string) => expand(part, values));
  for (const source of container.envFrom ?? []) {
    if (source.secretRef) {
      source.configMapRef = source.secretRef;
      delete source.secretRef;
    }
  }
}

/** `$(NAME)` replaced by a variable defined before it, `$$(NAME)` kept as `$(NAME)`, as the kubelet does. */
function expand(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name?: string) =>
    whole === "$$" ? "$" : name !== undefined && values.has(name) ? values.get(name)! : whole,
  );
}
