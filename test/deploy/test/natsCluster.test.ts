// NATS survives a node in every overlay: three servers (a StatefulSet started in parallel, its
// pods named on a headless Service that nats.conf's routes name), each its own server_name from
// POD_NAME, a disruption budget of one, spread across nodes (a rule in prod); the gateway and
// every runner name all three servers and create their streams and buckets with three replicas
// (LSPMESH_JETSTREAM_REPLICAS=3); network policies let the servers route to each other only.
import { describe, expect, test } from "vitest";
import { type KubeObject, render, workloads } from "../src/kustomize.js";

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

const SERVERS = 3;
const component = (o: KubeObject) => o.metadata.labels?.["app.kubernetes.io/component"];
const envOf = (workload: KubeObject, name: string): string | undefined =>
  workload.spec.template.spec.containers[0].env?.find((v: Json) => v.name === name)?.value;

describe.each(["dev", "prod"])("overlays/%s", (overlay) => {
  const objects = render(`overlays/${overlay}`);
  const nats = workloads(objects).find((w) => component(w) === "nats")!;
  const config: string = objects.find(
    (o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("lspmesh-nats-config"),
  )!.data["nats.conf"];

  test("three NATS servers, started in parallel, routing to each other by their pods' names", () => {
    expect(nats.kind).toBe("StatefulSet");
    expect(nats.spec.replicas).toBe(SERVERS);
    expect(nats.spec.podManagementPolicy).toBe("Parallel");
    const headless = objects.find((o) => o.kind === "Service" && o.metadata.name === nats.spec.serviceName)!;
    expect(headless.spec.clusterIP).toBe("None");
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    expect(headless.spec.ports.map((p: Json) => p.port)).toContain(6222);
    const routes = [...config.matchAll(/nats:\/\/([a-z0-9-]+)\.([a-z0-9-]+):6222/g)].map((m) => [m[1], m[2]]);
    expect(routes).toEqual(
      Array.from({ length: SERVERS }, (_, n) => [`${nats.metadata.name}-${n}`, nats.spec.serviceName]),
    );
    expect(config).toMatch(/^server_name: \$POD_NAME$/m);
    const podName = nats.spec.template.spec.containers[0].env.find((v: Json) => v.name === "POD_NAME");
    expect(podName.valueFrom.fieldRef.fieldPath).toBe("metadata.name");
  });

  test("one server at a time may go: a disruption budget of one, spread across nodes and zones", () => {
    const pdb = objects.find((o) => o.kind === "PodDisruptionBudget" && o.metadata.name === "lspmesh-nats")!;
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.spec.selector.matchLabels).toEqual(nats.spec.selector.matchLabels);
    const spec = nats.spec.template.spec;
    expect(spec.topologySpreadConstraints.map((c: Json) => c.topologyKey)).toContain("topology.kubernetes.io/zone");
    const antiAffinity = spec.affinity.podAntiAffinity;
    const terms =
      overlay === "prod"
        ? antiAffinity.requiredDuringSchedulingIgnoredDuringExecution
        : antiAffinity.preferredDuringSchedulingIgnoredDuringExecution.map((p: Json) => p.podAffinityTerm);
    expect(terms).toContainEqual({
      topologyKey: "kubernetes.io/hostname",
      labelSelector: { matchLabels: nats.spec.selector.matchLabels },
    });
  });

  test("the gateway and every runner name all three servers and make three replicas", () => {
    const clients = workloads(objects).filter((w) => ["gateway", "runner"].includes(component(w)!));
    expect(clients.length).toBeGreaterThanOrEqual(2);
    for (const client of clients) {
      const urls = envOf(client, "LSPMESH_NATS_URL")?.split(",") ?? [];
      expect(urls, client.metadata.name).toEqual(
        Array.from({ length: SERVERS }, (_, n) => `nats://${nats.metadata.name}-${n}.${nats.spec.serviceName}:4222`),
      );
      expect(envOf(client, "LSPMESH_JETSTREAM_REPLICAS"), client.metadata.name).toBe(String(SERVERS));
    }
  });
});

test("local: three NATS servers routing by podman pod names, every service given all three", () => {
  const objects = render("overlays/local");
  const nats = workloads(objects).find((w) => component(w) === "nats")!;
  expect(nats.spec.replicas).toBe(SERVERS);
  const podmanNames = Array.from({ length: SERVERS }, (_, n) => `${nats.metadata.name}-${n}-pod-0`);
  const command: string[] = nats.spec.template.spec.containers[0].command;
  expect(command[command.indexOf("--routes") + 1]).toBe(podmanNames.map((pod) => `nats://${pod}:6222`).join(","));
  for (const client of workloads(objects).filter((w) => ["gateway", "runner"].includes(component(w)!))) {
    expect(envOf(client, "LSPMESH_NATS_URL")).toBe(podmanNames.map((pod) => `nats://${pod}:4222`).join(","));
    expect(envOf(client, "LSPMESH_JETSTREAM_REPLICAS")).toBe(String(SERVERS));
  }
});
