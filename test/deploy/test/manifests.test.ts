// Every kustomize overlay (and the base) renders with `kubectl kustomize`, every object is valid
// against the Kubernetes API schemas, every workload is hardened (Pod Security "restricted" and
// more), and the pieces fit: references resolve, every runner has a NATS identity whose
// permissions match the tenants its pool serves, and a tenant's pool mounts only its folders.
import { natsAuthorizationConfig } from "@lspmesh/events";
import { describe, expect, test } from "vitest";
import { hardeningProblems } from "../src/hardening.js";
import { schemaProblem } from "../src/kubernetesSchemas.js";
import { type KubeObject, overlays, render, workloads } from "../src/kustomize.js";
import { natsPermissionsOf, natsUsers } from "../src/shippedNats.js";

/** The password reference `lspmesh nats-auth` writes for a user (a variable nats-server reads from its environment). */
const passwordVariable = (user: string) => `$LSPMESH_NATS_${user.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PASSWORD`;

/** Secrets the base and prod expect the operator to create (docs/deploy.md). */
const EXTERNAL_SECRETS = ["lspmesh-api-keys", "lspmesh-grpc", "lspmesh-nats-passwords"];
const TARGETS = ["base", ...overlays().map((overlay) => `overlays/${overlay}`)];
const rendered = new Map(TARGETS.map((target) => [target, render(target)]));

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

const podOf = (workload: KubeObject): Json => workload.spec.template.spec;
const envOf = (container: Json, name: string): Json =>
  (container.env ?? []).find((variable: Json) => variable.name === name);

test("overlays dev, prod and local exist and render", () => {
  expect(overlays()).toEqual(expect.arrayContaining(["dev", "local", "prod"]));
  for (const objects of rendered.values()) expect(workloads(objects).length).toBeGreaterThanOrEqual(3);
});

describe.each(TARGETS)("%s", (target) => {
  const objects = rendered.get(target)!;

  test("every object is valid against the Kubernetes schemas", () => {
    const problems = objects.flatMap((object) => {
      const problem = schemaProblem(object);
      return problem ? [`${object.kind} ${object.metadata.name}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  test("every workload is hardened: restricted, read-only root, probes, requests and limits", () => {
    expect(workloads(objects).flatMap(hardeningProblems)).toEqual([]);
  });

  test("every Secret and ConfigMap a workload uses exists or is one the operator creates", () => {
    const present = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name);
    const missing: string[] = [];
    for (const workload of workloads(objects)) {
      const pod = podOf(workload);
      const refs: Array<[string, string]> = [];
      for (const volume of pod.volumes ?? []) {
        if (volume.secret) refs.push(["Secret", volume.secret.secretName]);
        if (volume.configMap) refs.push(["ConfigMap", volume.configMap.name]);
      }
      for (const container of pod.containers) {
        for (const variable of container.env ?? []) {
          if (variable.valueFrom?.secretKeyRef) refs.push(["Secret", variable.valueFrom.secretKeyRef.name]);
          if (variable.valueFrom?.configMapKeyRef) refs.push(["ConfigMap", variable.valueFrom.configMapKeyRef.name]);
        }
        for (const source of container.envFrom ?? []) {
          if (source.secretRef) refs.push(["Secret", source.secretRef.name]);
        }
      }
      for (const [kind, name] of refs) {
        const generated = present(kind).includes(name);
        const external = kind === "Secret" && EXTERNAL_SECRETS.includes(name) && present("Secret").length === 0;
        if (!generated && !external) missing.push(`${workload.metadata.name} → ${kind} ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every runner logs in to NATS as its own user; NATS gets exactly the generated permissions of these runners", () => {
    // The authorization.conf this rendering gives NATS.
    const config = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("lspmesh-nats-config"));
    const authorization: string = config?.data["authorization.conf"] ?? "";
    const permissionsOf = (user: string) => natsPermissionsOf(authorization, user);
    const declared = natsUsers(authorization);
    const problems: string[] = [];
    const runners = workloads(objects).filter((w) => w.metadata.labels?.["app.kubernetes.io/component"] === "runner");
    expect(runners.length).toBeGreaterThan(0);
    const identities: Array<{ id: string; tenants?: string[] }> = [];
    for (const runner of runners) {
      const name = runner.metadata.name;
      const container = podOf(runner).containers[0];
      const items: Json[] = podOf(runner).volumes.find((volume: Json) => volume.name === "nats").secret.items;
      // Every replica's id (its pod name) has a password file, named after a declared user.
      for (let ordinal = 0; ordinal < runner.spec.replicas; ordinal++) {
        const id = `${name}-${ordinal}`;
        const item = items.find((entry) => entry.path === id);
        if (!item) problems.push(`${id}: no NATS password file`);
        else if (declared.get(id) !== item.key) problems.push(`${id}: password ${item.key} is not its user's`);
        if (!permissionsOf(id).includes(`$KV.lspmesh-runners.${id}`)) problems.push(`${id}: no registry key`);
      }
      const tenants = envOf(container, "LSPMESH_TENANTS")?.value?.split(",") as string[] | undefined;
      for (const item of items) identities.push({ id: item.path, ...(tenants ? { tenants } : {}) });
      // A pool restricted to tenants mounts only their folders of the workspaces volume.
      const mounts: Json[] = container.volumeMounts.filter((mount: Json) => mount.name === "workspaces");
      const wanted = tenants ? tenants.map((t) => `/workspaces/${t}<-${t}`) : ["/workspaces<-"];
      const actual = mounts.map((mount) => `${mount.mountPath}<-${mount.subPath ?? ""}`);
      if (actual.sort().join() !== wanted.sort().join()) problems.push(`${name}: mounts ${actual} for ${tenants}`);
    }
    expect(problems).toEqual([]);
    // The file NATS gets is exactly what lspmesh's generator (`lspmesh nats-auth`) makes for these
    // runners, with the tenants of the gateway's tenants file: permissions exact, none left over.
    const tenantsFile = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("lspmesh-tenants"));
    const tenantIds = Object.keys(JSON.parse(tenantsFile?.data["tenants.json"]).tenants);
    identities.sort((a, b) => a.id.localeCompare(b.id));
    const generated = natsAuthorizationConfig({ runners: identities, tenants: tenantIds, password: passwordVariable });
    expect(authorization.replace(/^#.*\n/gm, "")).toBe(generated);
  });

  test("probes use the real health endpoints: the gateway's /readyz and /healthz, the runner's gRPC health", () => {
    for (const workload of workloads(objects)) {
      const container = podOf(workload).containers[0];
      const component = workload.metadata.labels?.["app.kubernetes.io/component"];
      if (component === "gateway") {
        expect(container.readinessProbe.httpGet.path).toBe("/readyz");
        expect(container.livenessProbe.httpGet.path).toBe("/healthz");
      } else if (component === "runner") {
        expect(container.readinessProbe.grpc).toEqual({ port: 7421, service: "lspmesh.v1.Runner" });
        expect(container.livenessProbe.grpc.port).toBe(7421);
        // Time to drain (LSPMESH_DRAIN_MS) within the grace period, with room to stop servers.
        const drainMs = Number(envOf(container, "LSPMESH_DRAIN_MS").value);
        expect(podOf(workload).terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(drainMs + 15_000);
      }
    }
  });
});

test("prod: runners reach only NATS, the gateway only runners, NATS and HTTPS; everything else is denied", () => {
  const policies = rendered.get("overlays/prod")!.filter((object) => object.kind === "NetworkPolicy");
  const named = (name: string) => policies.find((policy) => policy.metadata.name === name)!;
  expect(named("lspmesh-default-deny").spec).toEqual({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
  const runner = named("lspmesh-runner").spec;
  expect(runner.egress).toEqual([
    {
      to: [
        {
          podSelector: { matchLabels: { "app.kubernetes.io/name": "lspmesh", "app.kubernetes.io/component": "nats" } },
        },
      ],
      ports: [{ protocol: "TCP", port: 4222 }],
    },
  ]);
  expect(runner.ingress[0].from[0].podSelector.matchLabels["app.kubernetes.io/component"]).toBe("gateway");
  const gatewayPorts = named("lspmesh-gateway").spec.egress.flatMap((rule: Json) =>
    rule.ports.map((p: Json) => p.port),
  );
  expect(gatewayPorts.sort()).toEqual([4222, 443, 7421]);
  expect(named("lspmesh-nats").spec.egress).toEqual([]);
  const kinds = new Set(rendered.get("overlays/prod")!.map((object) => object.kind));
  for (const kind of ["HorizontalPodAutoscaler", "PodDisruptionBudget", "ServiceMonitor"])
    expect(kinds).toContain(kind);
});

describe("the hardening check finds what is missing", () => {
  const gateway = workloads(rendered.get("base")!).find((w) => w.metadata.name === "lspmesh-gateway")!;
  const broken = (change: (container: Json, pod: Json) => void) => {
    const copy = structuredClone(gateway);
    change(podOf(copy).containers[0], podOf(copy));
    return hardeningProblems(copy);
  };

  test.each([
    ["a writable root", (c: Json) => delete c.securityContext.readOnlyRootFilesystem, /not read-only/],
    ["privilege escalation", (c: Json) => (c.securityContext.allowPrivilegeEscalation = true), /Escalation/],
    ["a capability kept", (c: Json) => (c.securityContext.capabilities.drop = ["NET_RAW"]), /not all dropped/],
    ["root", (_c: Json, p: Json) => (p.securityContext.runAsUser = 0), /uid 0/],
    ["no seccomp", (_c: Json, p: Json) => delete p.securityContext.seccompProfile, /seccomp/],
    ["no readiness probe", (c: Json) => delete c.readinessProbe, /readinessProbe/],
    ["no memory limit", (c: Json) => delete c.resources.limits, /memory limit/],
    ["a hostPath volume", (_c: Json, p: Json) => p.volumes.push({ name: "h", hostPath: { path: "/" } }), /hostPath/],
    ["a latest image", (c: Json) => (c.image = "lspmesh/gateway:latest"), /not pinned/],
  ])("%s", (_what, change, problem) => {
    expect(hardeningProblems(gateway)).toEqual([]);
    expect(broken(change as (c: Json, p: Json) => void).join("\n")).toMatch(problem);
  });
});

test("the schema check finds an invalid object", () => {
  const gateway = structuredClone(workloads(rendered.get("base")!).find((w) => w.kind === "Deployment")!);
  gateway.spec.replicas = "two";
  expect(schemaProblem(gateway)).toMatch(/replicas/);
  expect(schemaProblem({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } })).toMatch(/no schema/);
});
