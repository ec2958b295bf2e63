// The rendered local overlay as podman 4.3 (Debian bookworm) can run it with `podman kube play`.
// A mechanical translation, nothing else changes (images, commands, env, probes, security
// contexts, resources and volumes stay as rendered):
// - StatefulSet → Deployment with the same pod template (podman runs Pods and Deployments only);
// - Secret → ConfigMap with the decoded data, and every reference to it (podman 4.3 mounts a
//   Secret's base64 undecoded and wants JSON for secretKeyRef);
// - container ports go (podman 4.3 publishes every containerPort on the host; pods are reached
//   on the test's network instead), probes naming a port get its number;
// - objects podman does not run (Service, ServiceAccount, PVC: the test makes the volume,
//   NetworkPolicy, …) are left out.
import type { KubeObject } from "./kustomize.js";

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

export function forPodman(objects: KubeObject[]): KubeObject[] {
  const out: KubeObject[] = [];
  for (const object of objects) {
    if (object.kind === "ConfigMap") out.push(object);
    else if (object.kind === "Secret") out.push(secretAsConfigMap(object));
    else if (object.kind === "Deployment") out.push({ ...object, spec: { ...object.spec, template: pod(object) } });
    else if (object.kind === "StatefulSet") {
      const { replicas, selector } = object.spec;
      out.push({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: object.metadata,
        spec: { replicas, selector, template: pod(object) },
      });
    }
  }
  return out;
}

function secretAsConfigMap(secret: KubeObject): KubeObject {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries((secret.data ?? {}) as Record<string, string>)) {
    data[key] = Buffer.from(value.replace(/\s+/g, ""), "base64").toString("utf8");
  }
  Object.assign(data, secret.stringData ?? {});
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: secret.metadata.name }, data };
}

function pod(workload: KubeObject): Json {
  const template = structuredClone(workload.spec.template);
  const spec = template.spec;
  for (const volume of spec.volumes ?? []) {
    if (!volume.secret) continue;
    const { secretName, items } = volume.secret;
    delete volume.secret;
    volume.configMap = { name: secretName, ...(items ? { items } : {}) };
  }
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    const numbers = new Map<string, number>((container.ports ?? []).map((p: Json) => [p.name, p.containerPort]));
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      const handler = probe?.httpGet ?? probe?.tcpSocket ?? probe?.grpc;
      if (handler && typeof handler.port === "string") handler.port = numbers.get(handler.port);
    }
    delete container.ports;
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) variable.valueFrom = { configMapKeyRef: ref };
    }
    for (const source of container.envFrom ?? []) {
      if (source.secretRef) {
        source.configMapRef = source.secretRef;
        delete source.secretRef;
      }
    }
  }
  return template;
}
