// Every kustomize overlay (and the base) renders with `kubectl kustomize`, every object is valid
// against the Kubernetes API schemas, every workload is hardened (Pod Security "restricted" and
// more), and the pieces fit: references resolve; NATS runs with decentralized JWT auth from the
// ConfigMap `lspmesh nats-auth --jwt` makes; every runner registers as <pool>.<pod name> with its
// pool's NATS credential and gRPC secret, and no shipped file names a tenant's or a replica's
// NATS user; gateways take tenants and keys from the control plane, whose seeds (control.json)
// are valid; a tenant's pool mounts only its folders.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { applyFile } from "@lspmesh/gateway";
import { deriveRunnerSecret } from "@lspmesh/grpc";
import { describe, expect, test } from "vitest";
import { hardeningProblems } from "../src/hardening.js";
import { schemaProblem } from "../src/kubernetesSchemas.js";
import { KUSTOMIZE_DIR, type KubeObject, overlays, render, workloads } from "../src/kustomize.js";
import { natsJwtInclude } from "../src/shippedNats.js";

/**
 * What the operator creates (docs/deploy.md), never generated from this repository's files: the
 * NATS trust and credentials always, the gRPC secrets unless an overlay generates them (dev).
 */
const EXTERNAL = {
  ConfigMap: ["lspmesh-nats-jwt"],
  Secret: ["lspmesh-nats-gateway", "lspmesh-grpc", "lspmesh-grpc-runners"],
  /** One per runner pool: lspmesh-nats-runner-<pool>. */
  runnerCreds: (pool: string) => `lspmesh-nats-runner-${pool}`,
};
/** A pool name is a NATS subject token and a Secret key (`lspmesh admin creds runner POOL`). */
const POOL_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const TARGETS = ["base", ...overlays().map((overlay) => `overlays/${overlay}`)];
const rendered = new Map(TARGETS.map((target) => [target, render(target)]));

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

const podOf = (workload: KubeObject): Json => workload.spec.template.spec;
const envOf = (container: Json, name: string): Json =>
  (container.env ?? []).find((variable: Json) => variable.name === name);
const componentOf = (workload: KubeObject) => workload.metadata.labels?.["app.kubernetes.io/component"];
const volumeOf = (pod: Json, name: string): Json => (pod.volumes ?? []).find((volume: Json) => volume.name === name);
const mountOf = (container: Json, volume: string): Json =>
  (container.volumeMounts ?? []).find((mount: Json) => mount.name === volume);
/** A generated object's name carries a content hash: lspmesh-grpc-runners-5f6b… */
const named = (actual: string | undefined, name: string) => actual === name || actual?.startsWith(`${name}-`);

/**
 * A container's variable as the kubelet sets it: `$(NAME)` replaced by an earlier variable's value
 * (`fieldRef: metadata.name` is the pod's name), as Kubernetes expands them.
 */
function resolvedEnv(container: Json, podName: string, name: string): string | undefined {
  const values = new Map<string, string>();
  for (const variable of container.env ?? []) {
    const value =
      variable.valueFrom?.fieldRef?.fieldPath === "metadata.name"
        ? podName
        : String(variable.value ?? "").replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, ref: string) =>
            values.has(ref) ? values.get(ref)! : whole,
          );
    values.set(variable.name, value);
  }
  return values.get(name);
}

test("overlays dev, prod and local exist and render", () => {
  expect(overlays()).toEqual(expect.arrayContaining(["dev", "local", "prod"]));
  for (const objects of rendered.values()) expect(workloads(objects).length).toBeGreaterThanOrEqual(3);
});

describe.each(TARGETS)("%s", (target) => {
  const objects = rendered.get(target)!;
  const runners = workloads(objects).filter((w) => componentOf(w) === "runner");
  const gateway = workloads(objects).find((w) => componentOf(w) === "gateway")!;
  const pools = runners.map((runner) => envOf(podOf(runner).containers[0], "LSPMESH_POOL")?.value as string);

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
    const external = (kind: string, name: string) =>
      kind === "ConfigMap"
        ? EXTERNAL.ConfigMap.includes(name)
        : EXTERNAL.Secret.includes(name) || pools.some((pool) => EXTERNAL.runnerCreds(pool) === name);
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
        if (!present(kind).includes(name) && !external(kind, name))
          missing.push(`${workload.metadata.name} → ${kind} ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("NATS runs with JWT auth: nats.conf includes the nats-jwt.conf of ConfigMap lspmesh-nats-jwt, the resolver on its volume", () => {
    const nats = workloads(objects).find((w) => componentOf(w) === "nats")!;
    const container = podOf(nats).containers[0];
    const config = objects.find((o) => o.kind === "ConfigMap" && named(o.metadata.name, "lspmesh-nats-config"))!;
    const include = natsJwtInclude(config.data["nats.conf"]);
    expect(include).toBeDefined();
    // The include resolves, from the configuration's mount, to the JWT ConfigMap's file.
    const configDir = container.command[container.command.indexOf("--config") + 1].replace(/\/[^/]+$/, "");
    expect(mountOf(container, "config").mountPath).toBe(configDir);
    expect(volumeOf(podOf(nats), "config").configMap.name).toBe(config.metadata.name);
    const jwtMount = mountOf(container, "jwt");
    expect(named(volumeOf(podOf(nats), "jwt").configMap.name, "lspmesh-nats-jwt")).toBe(true);
    expect(posix.join(configDir, include!)).toBe(`${jwtMount.mountPath}/nats-jwt.conf`);
    // The resolver directory docs/deploy.md gives (--resolver-dir /data/jwt) is on the data volume.
    expect(mountOf(container, "data").mountPath).toBe("/data");
    // No passwords for the server to read from its environment: its pod's name only (server_name).
    expect(container.env ?? []).toEqual([
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ]);
    expect(container.envFrom ?? []).toEqual([]);
  });

  test("no NATS user of a tenant or a runner replica, no password, no tenants file anywhere", () => {
    const text = JSON.stringify(objects);
    expect(text).not.toMatch(/authorization\s*\{|authorization\.conf|_PASSWORD|PASSWORD_DIR/);
    expect(text).not.toMatch(/"(ci|writer)-[a-z]/);
    expect(text).not.toMatch(/LSPMESH_TENANTS_FILE|LSPMESH_API_KEYS_FILE|tenants\.json|api-keys/);
  });

  test("the gateway: tenants and keys from the control plane, its NATS credential, the gateways' gRPC key", () => {
    const pod = podOf(gateway);
    const container = pod.containers[0];
    expect(envOf(container, "LSPMESH_CONTROL").value).toBe("nats");
    const creds = envOf(container, "LSPMESH_NATS_CREDS").value;
    expect(creds).toBe(`${mountOf(container, "nats").mountPath}/gateway.creds`);
    expect(volumeOf(pod, "nats").secret.secretName).toBe("lspmesh-nats-gateway");
    expect(envOf(container, "LSPMESH_GRPC_PER_RUNNER_SECRETS").value).toBe("1");
    expect(envOf(container, "LSPMESH_GRPC_SECRET_FILE").value).toBe(`${mountOf(container, "grpc").mountPath}/secret`);
    expect(named(volumeOf(pod, "grpc").secret.secretName, "lspmesh-grpc")).toBe(true);
    for (const name of ["LSPMESH_NATS_USER", "LSPMESH_NATS_PASSWORD", "LSPMESH_TENANTS_FILE", "LSPMESH_API_KEYS_FILE"])
      expect(envOf(container, name), name).toBeUndefined();
  });

  test("every runner registers as <pool>.<pod name> with its pool's NATS credential and gRPC secret", () => {
    expect(runners.length).toBeGreaterThan(0);
    expect(new Set(pools).size, `pools ${pools}`).toBe(pools.length);
    const problems: string[] = [];
    const ids: string[] = [];
    for (const [index, runner] of runners.entries()) {
      const name = runner.metadata.name;
      const pod = podOf(runner);
      const container = pod.containers[0];
      const pool = pools[index]!;
      if (!POOL_NAME.test(pool ?? "")) problems.push(`${name}: pool '${pool}' is no valid pool name`);
      if (runner.metadata.labels?.["lspmesh.dev/pool"] !== pool) problems.push(`${name}: label is not its pool`);
      // Every replica's id: its pool, a dot, its pod name (no dot: the credential allows `<pool>.*`).
      for (let ordinal = 0; ordinal < runner.spec.replicas; ordinal++) {
        const id = resolvedEnv(container, `${name}-${ordinal}`, "LSPMESH_RUNNER_ID");
        if (id !== `${pool}.${name}-${ordinal}`) problems.push(`${name}-${ordinal}: runner id ${id}`);
        ids.push(id ?? "");
      }
      // The pool's creds file, nothing else of NATS's.
      if (envOf(container, "LSPMESH_NATS_CREDS")?.value !== `${mountOf(container, "nats")?.mountPath}/runner.creds`)
        problems.push(`${name}: LSPMESH_NATS_CREDS is not the mounted runner.creds`);
      if (volumeOf(pod, "nats")?.secret?.secretName !== EXTERNAL.runnerCreds(pool))
        problems.push(`${name}: NATS credential from ${volumeOf(pod, "nats")?.secret?.secretName}`);
      // Only the pool's gRPC secret, in the file the entry point reads (the id's part before '.').
      const grpc = volumeOf(pod, "grpc")?.secret;
      if (!named(grpc?.secretName, "lspmesh-grpc-runners")) problems.push(`${name}: gRPC secret ${grpc?.secretName}`);
      if (JSON.stringify(grpc?.items) !== JSON.stringify([{ key: pool, path: pool }]))
        problems.push(`${name}: gRPC items ${JSON.stringify(grpc?.items)}`);
      if (envOf(container, "LSPMESH_GRPC_SECRET_DIR")?.value !== mountOf(container, "grpc")?.mountPath)
        problems.push(`${name}: LSPMESH_GRPC_SECRET_DIR is not the gRPC mount`);
      for (const unwanted of ["LSPMESH_GRPC_SECRET_FILE", "LSPMESH_NATS_USER", "LSPMESH_NATS_PASSWORD"])
        if (envOf(container, unwanted)) problems.push(`${name}: sets ${unwanted}`);
      // A pool restricted to tenants mounts only their folders of the workspaces volume.
      const tenants = envOf(container, "LSPMESH_TENANTS")?.value?.split(",") as string[] | undefined;
      const mounts: Json[] = container.volumeMounts.filter((mount: Json) => mount.name === "workspaces");
      const wanted = tenants ? tenants.map((t) => `/workspaces/${t}<-${t}`) : ["/workspaces<-"];
      const actual = mounts.map((mount) => `${mount.mountPath}<-${mount.subPath ?? ""}`);
      if (actual.sort().join() !== wanted.sort().join()) problems.push(`${name}: mounts ${actual} for ${tenants}`);
    }
    expect(problems).toEqual([]);
    expect(new Set(ids).size, `runner ids ${ids}`).toBe(ids.length);
  });

  test("generated gRPC secrets: each pool's is the one derived from the gateways' key (lspmesh grpc-secrets)", () => {
    const secret = (name: string) => objects.find((o) => o.kind === "Secret" && named(o.metadata.name, name));
    const [key, perPool] = [secret("lspmesh-grpc"), secret("lspmesh-grpc-runners")];
    // Generated together or not at all.
    expect(Boolean(key)).toBe(Boolean(perPool));
    if (!key || !perPool) return;
    const decode = (value: string) => Buffer.from(value, "base64").toString("utf8");
    expect(Object.keys(perPool.data).sort()).toEqual([...pools].sort());
    for (const pool of pools)
      expect(decode(perPool.data[pool])).toBe(deriveRunnerSecret(decode(key.data.secret), pool));
  });

  test("probes use the real health endpoints: the gateway's /readyz and /healthz, the runner's gRPC health", () => {
    for (const workload of workloads(objects)) {
      const container = podOf(workload).containers[0];
      const component = componentOf(workload);
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

test("runners and gateways spread across zones, then nodes (preferences); runner budgets never block a drain", () => {
  for (const [target, objects] of rendered) {
    for (const workload of workloads(objects).filter((w) => ["runner", "gateway"].includes(componentOf(w) ?? ""))) {
      const spread = podOf(workload).topologySpreadConstraints ?? [];
      const where = `${target} ${workload.metadata.name}`;
      expect(
        spread.map((c: Json) => c.topologyKey),
        where,
      ).toEqual(["topology.kubernetes.io/zone", "kubernetes.io/hostname"]);
      expect(new Set(spread.map((c: Json) => c.whenUnsatisfiable)), where).toEqual(new Set(["ScheduleAnyway"]));
      for (const constraint of spread)
        expect(constraint.labelSelector.matchLabels, where).toEqual(workload.spec.selector.matchLabels);
    }
    // A minAvailable on a one-replica pool would stop every node drain.
    for (const budget of objects.filter((o) => o.kind === "PodDisruptionBudget" && o.metadata.name.includes("runner")))
      expect(budget.spec, `${target} ${budget.metadata.name}`).toEqual(expect.objectContaining({ maxUnavailable: 1 }));
  }
});

describe.each(overlays())("overlays/%s/control.json, the control plane's seed (lspmesh admin apply -f)", (overlay) => {
  const file = join(KUSTOMIZE_DIR, "overlays", overlay, "control.json");
  const seed = JSON.parse(readFileSync(file, "utf8"));
  const objects = rendered.get(`overlays/${overlay}`)!;

  test("is what `lspmesh admin apply` accepts, and names every tenant a dedicated pool serves", () => {
    const changes = applyFile(new Map(), seed, file);
    expect(changes.length).toBeGreaterThan(0);
    const dedicated = workloads(objects).flatMap(
      (w) => envOf(podOf(w).containers[0], "LSPMESH_TENANTS")?.value?.split(",") ?? [],
    );
    for (const tenant of dedicated) expect(Object.keys(seed.tenants)).toContain(tenant);
  });

  test("admits the documented tokens, and only their hashes are in the repository", () => {
    const documented: Record<string, string> = {
      dev: "dev-acme-token-0123456789",
      local: "local-acme-token-0123456789",
    };
    const token = documented[overlay];
    const keys: Array<{ id: string; sha256: string; tenant: string }> = seed.keys ?? [];
    if (!token) {
      expect(keys).toEqual([]);
      return;
    }
    const sha256 = createHash("sha256").update(token).digest("hex");
    expect(keys).toContainEqual(expect.objectContaining({ id: "acme-agent", tenant: "acme", sha256 }));
    expect(JSON.stringify(seed)).not.toContain(token);
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
  expect(gatewayPorts.sort()).toEqual([4222, 443, 7421, 7422]);
  // NATS reaches only its peers' route port; only they reach it there.
  const natsPods = { matchLabels: { "app.kubernetes.io/name": "lspmesh", "app.kubernetes.io/component": "nats" } };
  expect(named("lspmesh-nats").spec.egress).toEqual([
    { to: [{ podSelector: natsPods }], ports: [{ protocol: "TCP", port: 6222 }] },
  ]);
  expect(named("lspmesh-nats").spec.ingress).toContainEqual({
    from: [{ podSelector: natsPods }],
    ports: [{ protocol: "TCP", port: 6222 }],
  });
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

test.each(["dev", "prod"])(
  "overlays/%s: its namespace enforces Pod Security restricted (and audits and warns)",
  (overlay) => {
    const objects = rendered.get(`overlays/${overlay}`)!;
    const namespace = objects.find((object) => object.kind === "Namespace");
    expect(namespace?.metadata.name).toBe("lspmesh");
    const labels = namespace?.metadata.labels ?? {};
    for (const mode of ["enforce", "audit", "warn"]) {
      expect(labels[`pod-security.kubernetes.io/${mode}`], mode).toBe("restricted");
      expect(labels[`pod-security.kubernetes.io/${mode}-version`], mode).toMatch(/^(v1\.\d+|latest)$/);
    }
    const elsewhere = objects.filter(
      (object) => object.kind !== "Namespace" && object.metadata.namespace !== "lspmesh",
    );
    expect(elsewhere.map((object) => `${object.kind} ${object.metadata.name}`)).toEqual([]);
  },
);
