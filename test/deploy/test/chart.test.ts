// The Helm chart (helm/lspmesh), rendered as `helm template` renders it (src/helmTemplate.ts: helm's
// template engine without the helm binary, which cannot be installed here), once per values file:
// the defaults and every ci/*-values.yaml (production-values.yaml among them). Each rendered set
// passes the checks the kustomize overlays pass (Kubernetes schemas; Pod Security "restricted" and
// the rest of the hardening on every container of every pod template, NATS's included), its
// Secrets and ConfigMaps exist or are the operator's, NATS runs with the JWT configuration and
// reaches only what it must; the chart's workloads, NATS configuration, network policies and
// disruption budgets are the kustomize base's and components'; the schema refuses bad values.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { createNatsTrust, natsJwtServerConfig } from "@lspmesh/events";
import { NATS_SERVER_BINARY, needs } from "@lspmesh/test-kit";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { hardeningProblems } from "../src/hardening.js";
import { type HelmRender, helmTemplate, type Values } from "../src/helmTemplate.js";
import { schemaProblem } from "../src/kubernetesSchemas.js";
import { type KubeObject, render, workloads } from "../src/kustomize.js";
import { repoPath } from "../src/repo.js";
import { NATS_CONFIG, natsJwtInclude } from "../src/shippedNats.js";

const CHART = repoPath("helm/lspmesh");
/** Go and Debian's sprig sources build the renderer; without them the suite skips (fails in CI). */
const ready = needs("helm-render", "the Helm chart tests");
const describeChart = ready ? describe : ((() => {}) as unknown as typeof describe);
if (!ready) test.skip("the Helm chart (the renderer's packages are missing)", () => {});
const SCENARIOS = ready
  ? readdirSync(join(CHART, "ci"))
      .filter((file) => file.endsWith("-values.yaml"))
      .sort()
  : [];
const rendered = new Map<string, HelmRender>(
  SCENARIOS.map((file) => [file, helmTemplate(CHART, { valuesFiles: [join(CHART, "ci", file)] })]),
);
const byDefault = rendered.get("default-values.yaml")!;

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML.
type Json = any;

const podOf = (workload: KubeObject): Json => workload.spec.template.spec;
const containerOf = (workload: KubeObject): Json => podOf(workload).containers[0];
const envOf = (container: Json, name: string): Json =>
  (container.env ?? []).find((variable: Json) => variable.name === name);
const componentOf = (object: KubeObject) => object.metadata.labels?.["app.kubernetes.io/component"];
const ofComponent = (objects: KubeObject[], name: string) => workloads(objects).filter((w) => componentOf(w) === name);
const named = (objects: KubeObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

/** The chart's selectors also name the release (app.kubernetes.io/instance); kustomize's do not. */
function withoutInstance(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutInstance);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "app.kubernetes.io/instance")
      .map(([key, inner]) => [key, withoutInstance(inner)]),
  );
}

/** nats.conf's settings: no comments; the server's name and the cluster block are the chart's own. */
function natsSettings(text: string): string[] {
  const lines = text
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("server_name"));
  const out: string[] = [];
  let depth = 0;
  for (const line of lines) {
    if (depth === 0 && /^cluster\s*\{/.test(line)) depth = 1;
    else if (depth > 0) depth += (line.match(/[{[]/g) ?? []).length - (line.match(/[}\]]/g) ?? []).length;
    else out.push(line.replace(/\s+/g, " "));
  }
  return out;
}

describe.each(SCENARIOS)("ci/%s", (scenario) => {
  const { objects, values } = rendered.get(scenario)!;
  const pools = (values.pools as Values[]).map((pool) => pool.name as string);

  test("every object is valid against the Kubernetes schemas", () => {
    const problems = objects.flatMap((object) => {
      const problem = schemaProblem(object);
      return problem ? [`${object.kind} ${object.metadata.name}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  test("every workload, NATS's included, is hardened (Pod Security restricted and more); so is the test pod", () => {
    const kinds = workloads(objects).map((w) => `${w.kind} ${componentOf(w)}`);
    expect(kinds).toContain("Deployment gateway");
    if (values.nats.enabled) expect(kinds).toContain("StatefulSet nats");
    expect(workloads(objects).flatMap(hardeningProblems)).toEqual([]);
    for (const pod of objects.filter((o) => o.kind === "Pod")) {
      const asWorkload = { ...pod, kind: "Pod", spec: { template: { spec: pod.spec } } };
      expect(hardeningProblems(asWorkload).filter((p) => !/Probe/.test(p))).toEqual([]);
    }
  });

  test("every Secret and ConfigMap a workload uses is the chart's or one the operator creates", () => {
    const external = [
      `ConfigMap ${values.nats.jwtConfigMap}`,
      `ConfigMap ${values.externalNats.caConfigMap}`,
      `Secret ${values.natsAuth.gatewaySecret}`,
      `Secret ${values.grpc.secretName}`,
      `Secret ${values.grpc.runnerSecretsName}`,
      ...pools.map((pool) => `Secret lspmesh-nats-runner-${pool}`),
      // The extension points' examples (ci/extensions-values.yaml).
      "ConfigMap corporate-ca",
    ];
    const present = new Set(objects.map((o) => `${o.kind} ${o.metadata.name}`));
    const missing = workloads(objects).flatMap((workload) =>
      (podOf(workload).volumes ?? []).flatMap((volume: Json) => {
        const ref = volume.secret
          ? `Secret ${volume.secret.secretName}`
          : volume.configMap
            ? `ConfigMap ${volume.configMap.name}`
            : undefined;
        return ref && !present.has(ref) && !external.includes(ref) ? [`${workload.metadata.name} → ${ref}`] : [];
      }),
    );
    expect(missing).toEqual([]);
  });

  test("streams and KV buckets keep one copy per NATS server (LSPMESH_JETSTREAM_REPLICAS)", () => {
    const servers = values.nats.enabled ? values.nats.replicas : values.externalNats.jetstreamReplicas;
    for (const workload of [...ofComponent(objects, "gateway"), ...ofComponent(objects, "runner")]) {
      const replicas = envOf(containerOf(workload), "LSPMESH_JETSTREAM_REPLICAS")?.value;
      expect(replicas, workload.metadata.name).toBe(servers > 1 ? String(servers) : undefined);
    }
  });

  test("runners drain for at least the call deadline, within their grace period", () => {
    for (const runner of ofComponent(objects, "runner")) {
      const drainMs = Number(envOf(containerOf(runner), "LSPMESH_DRAIN_MS").value);
      expect(drainMs).toBeGreaterThanOrEqual(values.gateway.callTimeoutMs || 30_000);
      expect(podOf(runner).terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(drainMs + 15_000);
    }
  });

  test("the gateway's NATS credential, each pool's own credential and gRPC key, runner ids <pool>.<pod name>", () => {
    const gateway = podOf(ofComponent(objects, "gateway")[0]!);
    const volume = (pod: Json, name: string) => pod.volumes.find((v: Json) => v.name === name);
    expect(volume(gateway, "nats").secret.secretName).toBe(values.natsAuth.gatewaySecret);
    expect(envOf(gateway.containers[0], "LSPMESH_CONTROL").value).toBe("nats");
    expect(envOf(gateway.containers[0], "LSPMESH_GRPC_PER_RUNNER_SECRETS").value).toBe("1");
    for (const runner of ofComponent(objects, "runner")) {
      const pool = runner.metadata.labels!["lspmesh.dev/pool"]!;
      expect(volume(podOf(runner), "nats").secret.secretName).toBe(`lspmesh-nats-runner-${pool}`);
      expect(volume(podOf(runner), "grpc").secret.items).toEqual([{ key: pool, path: pool }]);
      expect(envOf(containerOf(runner), "LSPMESH_RUNNER_ID").value).toBe(`${pool}.$(POD_NAME)`);
    }
    const text = JSON.stringify(objects);
    expect(text).not.toMatch(/authorization\s*\{|_PASSWORD|PASSWORD_DIR|tenants\.json|API_KEYS/);
  });
});

describe.each(SCENARIOS.filter((file) => rendered.get(file)!.values.nats.enabled))("ci/%s: NATS", (scenario) => {
  const { objects, values } = rendered.get(scenario)!;
  const nats = ofComponent(objects, "nats")[0]!;
  const container = containerOf(nats);
  const config = named(objects, "ConfigMap", "lspmesh-nats-config")!.data["nats.conf"] as string;

  test("JWT authentication: nats.conf includes the nats-jwt.conf of ConfigMap lspmesh-nats-jwt; the resolver on its volume", () => {
    const configDir = container.command[container.command.indexOf("--config") + 1].replace(/\/[^/]+$/, "");
    const mount = (name: string) => container.volumeMounts.find((m: Json) => m.name === name);
    const volume = (name: string) => podOf(nats).volumes.find((v: Json) => v.name === name);
    expect(mount("config").mountPath).toBe(configDir);
    expect(volume("config").configMap.name).toBe("lspmesh-nats-config");
    expect(volume("jwt").configMap.name).toBe(values.nats.jwtConfigMap);
    expect(posix.join(configDir, natsJwtInclude(config)!)).toBe(`${mount("jwt").mountPath}/nats-jwt.conf`);
    expect(mount("data").mountPath).toBe("/data");
    expect(nats.spec.volumeClaimTemplates.map((claim: Json) => claim.metadata.name)).toEqual(["data"]);
    // No passwords for the server to read from its environment: only its name.
    expect(container.env.map((variable: Json) => variable.name)).toEqual(["POD_NAME"]);
    expect(container.envFrom ?? []).toEqual([]);
  });

  test("nats-server accepts its nats.conf, with a fresh trust's nats-jwt.conf where the include finds it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lspmesh-chart-nats-"));
    try {
      for (const folder of ["etc/nats", "etc/nats-jwt"]) mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, "etc/nats/nats.conf"), config);
      const trust = await createNatsTrust();
      writeFileSync(join(dir, "etc/nats-jwt/nats-jwt.conf"), natsJwtServerConfig(trust, join(dir, "jwt")));
      const check = spawnSync(NATS_SERVER_BINARY, ["-t", "-c", join(dir, "etc/nats/nats.conf")], {
        encoding: "utf8",
        env: { ...process.env, POD_NAME: "lspmesh-nats-0" },
      });
      expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the servers: one, or a cluster of three routed over the headless Service", () => {
    const replicas = values.nats.replicas as number;
    expect(nats.spec.replicas).toBe(replicas);
    expect(nats.spec.podManagementPolicy).toBe("Parallel");
    const headless = named(objects, "Service", nats.spec.serviceName)!;
    expect(headless.spec).toMatchObject({ clusterIP: "None", publishNotReadyAddresses: true });
    const routes = [...config.matchAll(/nats:\/\/(\S+):6222/g)].map((match) => match[1]);
    const pods = Array.from({ length: replicas }, (_, i) => `lspmesh-nats-${i}.${headless.metadata.name}`);
    expect(routes).toEqual(replicas > 1 ? pods : []);
    expect(config).toMatch(/^server_name: \$POD_NAME$/m);
  });

  test("its network policy: clients only from lspmesh's pods and labelled clients, routes only between its servers", () => {
    if (!values.networkPolicy.enabled) return;
    const policy = named(objects, "NetworkPolicy", "lspmesh-nats")!.spec;
    const selector = { "app.kubernetes.io/name": "lspmesh", "app.kubernetes.io/instance": "lspmesh" };
    expect(policy.podSelector.matchLabels).toEqual({ ...selector, "app.kubernetes.io/component": "nats" });
    const client = policy.ingress.find((rule: Json) => rule.ports[0].port === 4222);
    expect(client.from[0]).toEqual({ podSelector: { matchLabels: selector } });
    expect(client.from.slice(1).every((peer: Json) => peer.podSelector.matchLabels["lspmesh.dev/nats-client"])).toBe(
      true,
    );
    const routes = values.nats.replicas > 1 ? [{ podSelector: policy.podSelector }] : undefined;
    expect(policy.ingress.find((rule: Json) => rule.ports[0].port === 6222)?.from).toEqual(routes);
    expect(policy.egress).toEqual(routes ? [{ to: routes, ports: [{ protocol: "TCP", port: 6222 }] }] : []);
  });
});

describeChart("the chart makes what the kustomize base makes (release lspmesh, default values)", () => {
  const base = render("base");
  // The base's NATS servers (one, or a cluster of three); everything else the chart's defaults.
  const servers = ofComponent(base, "nats")[0]!.spec.replicas as number;
  const { objects } =
    servers === byDefault.values.nats.replicas
      ? byDefault
      : helmTemplate(CHART, { values: [{ nats: { replicas: servers } }] });
  const same = (name: string) => [ofComponent(base, name), ofComponent(objects, name)] as const;
  const settings = (workload: KubeObject) => {
    const pod = podOf(workload);
    const container = containerOf(workload);
    return {
      kind: workload.kind,
      image: container.image,
      ports: container.ports,
      probes: [container.startupProbe, container.readinessProbe, container.livenessProbe],
      lifecycle: container.lifecycle,
      resources: container.resources,
      mounts: container.volumeMounts.map((m: Json) => `${m.name} ${m.mountPath} ${m.subPath ?? ""} ${!!m.readOnly}`),
      security: container.securityContext,
      podSecurity: pod.securityContext,
      automount: pod.automountServiceAccountToken,
      grace: pod.terminationGracePeriodSeconds,
      spread: withoutInstance(pod.topologySpreadConstraints),
    };
  };

  test("every kind of object the base makes", () => {
    const kinds = new Set(objects.map((object) => object.kind));
    for (const kind of new Set(base.map((object) => object.kind))) expect(kinds, kind).toContain(kind);
  });

  test("the gateway: the same image, ports, probes, resources, mounts, hardening; every variable the base sets", () => {
    const [[inBase], [inChart]] = same("gateway");
    expect(settings(inChart!)).toEqual(settings(inBase!));
    expect(inChart!.spec.strategy).toEqual(inBase!.spec.strategy);
    const names = containerOf(inChart!).env.map((variable: Json) => variable.name);
    for (const variable of containerOf(inBase!).env) expect(names).toContain(variable.name);
    for (const name of ["LSPMESH_CONTROL", "LSPMESH_GRPC_PER_RUNNER_SECRETS", "LSPMESH_LOG_LEVEL"])
      expect(envOf(containerOf(inChart!), name)).toEqual(envOf(containerOf(inBase!), name));
  });

  test("the runner pools of the base, each with the same settings and variables", () => {
    const [inBase, inChart] = same("runner");
    const pool = (workload: KubeObject) => workload.metadata.labels!["lspmesh.dev/pool"];
    expect(inChart.map(pool).sort()).toEqual(inBase.map(pool).sort());
    for (const runner of inBase) {
      const chartRunner = inChart.find((w) => pool(w) === pool(runner))!;
      expect(settings(chartRunner)).toEqual(settings(runner));
      expect(chartRunner.spec.replicas).toBe(runner.spec.replicas);
      const names = containerOf(chartRunner).env.map((variable: Json) => variable.name);
      for (const variable of containerOf(runner).env) expect(names).toContain(variable.name);
      for (const name of ["LSPMESH_DRAIN_MS", "LSPMESH_POOL", "LSPMESH_WORKSPACES_ROOT", "LSPMESH_LANGUAGES_FILE"])
        expect(envOf(containerOf(chartRunner), name)).toEqual(envOf(containerOf(runner), name));
      const languages = (objects: KubeObject[], w: KubeObject) =>
        JSON.parse(
          named(objects, "ConfigMap", podOf(w).volumes.find((v: Json) => v.name === "languages").configMap.name)?.data[
            "languages.json"
          ] ?? "{}",
        ).serve;
      const baseMap = base.find(
        (o) => o.kind === "ConfigMap" && o.metadata.name.startsWith(`lspmesh-runner-${pool(runner)}-languages`),
      )!;
      expect(languages(objects, chartRunner)).toEqual(JSON.parse(baseMap.data["languages.json"]).serve);
    }
  });

  test("NATS: the same server, volumes and hardening; nats.conf's settings are deploy/nats/nats.conf's", () => {
    const [[inBase], [inChart]] = same("nats");
    const server = (workload: KubeObject) => {
      // Where the servers go is the chart's pod settings (default: spread over zones and nodes).
      const { spread: _spread, ...rest } = settings(workload);
      return { ...rest, command: containerOf(workload).command, claims: workload.spec.volumeClaimTemplates };
    };
    expect(server(inChart!)).toEqual(server(inBase!));
    const config = named(objects, "ConfigMap", "lspmesh-nats-config")!.data["nats.conf"];
    const shipped = readFileSync(NATS_CONFIG, "utf8");
    expect(natsSettings(config)).toEqual(natsSettings(shipped));
    const routes = (text: string) => [...text.matchAll(/nats:\/\/\S+:6222/g)].map((match) => match[0]);
    expect(routes(config)).toEqual(routes(shipped));
    const headless = (objects: KubeObject[], nats: KubeObject) =>
      withoutInstance(named(objects, "Service", nats.spec.serviceName)?.spec);
    expect(headless(objects, inChart!)).toEqual(headless(base, inBase!));
  });
});

describeChart("the chart's network policies, disruption budgets and scraping are the kustomize components'", () => {
  const prod = render("overlays/prod");
  const natsServers = ofComponent(prod, "nats")[0]!.spec.replicas as number;
  // prod's pools (a pool per name, serving the tenants it lists), as chart values.
  const [template] = byDefault.values.pools as Values[];
  const pools = ofComponent(prod, "runner").map((runner) => ({
    ...template,
    name: envOf(containerOf(runner), "LSPMESH_POOL").value,
    tenants: envOf(containerOf(runner), "LSPMESH_TENANTS")?.value.split(",") ?? [],
  }));
  const chart = helmTemplate(CHART, {
    values: [
      {
        nats: { replicas: natsServers },
        pools,
        serviceMonitor: { enabled: true },
        gateway: { autoscaling: { enabled: true } },
      },
    ],
  }).objects;
  const compared = (kind: string) =>
    prod
      .filter((object) => object.kind === kind)
      .map((object) => {
        const ours = named(chart, kind, object.metadata.name);
        return [object.metadata.name, withoutInstance(ours?.spec), object.spec] as const;
      });

  test.each(["NetworkPolicy", "PodDisruptionBudget", "ServiceMonitor", "HorizontalPodAutoscaler"])("%s", (kind) => {
    const pairs = compared(kind);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [name, ours, theirs] of pairs) expect(ours, name).toEqual(theirs);
  });

  test("gateways and runners: the same NATS URLs and JetStream replicas", () => {
    const nats = (objects: KubeObject[]) =>
      workloads(objects)
        .filter((w) => ["gateway", "runner"].includes(componentOf(w) ?? ""))
        .map((w) => ({
          name: w.metadata.name,
          url: envOf(containerOf(w), "LSPMESH_NATS_URL")?.value,
          replicas: envOf(containerOf(w), "LSPMESH_JETSTREAM_REPLICAS")?.value,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    expect(nats(chart)).toEqual(nats(prod));
  });

  test("the chart's only extra policy lets `helm test`'s pod call the gateway", () => {
    const extra = chart
      .filter((object) => object.kind === "NetworkPolicy" && !named(prod, "NetworkPolicy", object.metadata.name))
      .map((object) => object.metadata.name);
    expect(extra).toEqual(["lspmesh-tests"]);
    const egress = named(chart, "NetworkPolicy", "lspmesh-tests")!.spec.egress;
    expect(egress).toEqual([expect.objectContaining({ ports: [{ protocol: "TCP", port: 7420 }] })]);
  });
});

describeChart("ci/production-values.yaml: the production values", () => {
  const { objects, values } = rendered.get("production-values.yaml")!;
  const budget = (name: string) => named(objects, "PodDisruptionBudget", name)?.spec;

  test("three NATS servers, at least two gateways (autoscaled), budgets for every workload", () => {
    expect(values.nats.replicas).toBe(3);
    expect(ofComponent(objects, "nats")[0]!.spec.replicas).toBe(3);
    const hpa = named(objects, "HorizontalPodAutoscaler", "lspmesh-gateway")!;
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(budget("lspmesh-gateway")!.minAvailable).toBeGreaterThanOrEqual(1);
    expect(budget("lspmesh-gateway")!.minAvailable).toBeLessThan(hpa.spec.minReplicas);
    expect(budget("lspmesh-nats")!.maxUnavailable).toBe(1);
    for (const runner of ofComponent(objects, "runner"))
      expect(budget(runner.metadata.name)!.maxUnavailable, runner.metadata.name).toBe(1);
  });

  test("every workload spreads over zones and nodes; NATS servers never share a node", () => {
    for (const workload of workloads(objects)) {
      const spread = podOf(workload).topologySpreadConstraints as Json[];
      expect(spread.map((c) => c.topologyKey).sort(), workload.metadata.name).toEqual([
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
      ]);
      for (const constraint of spread)
        expect(constraint.labelSelector.matchLabels).toEqual(workload.spec.selector.matchLabels);
    }
    const nats = podOf(ofComponent(objects, "nats")[0]!).topologySpreadConstraints as Json[];
    expect(nats.find((c) => c.topologyKey === "kubernetes.io/hostname").whenUnsatisfiable).toBe("DoNotSchedule");
  });

  test("the gateway behind an Ingress with TLS, its public URL and host names set", () => {
    const ingress = named(objects, "Ingress", "lspmesh-gateway")!;
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({
      name: "lspmesh-gateway",
      port: { name: "http" },
    });
    expect(ingress.spec.tls[0].hosts).toEqual(values.gateway.allowedHosts);
    const gateway = containerOf(ofComponent(objects, "gateway")[0]!);
    expect(envOf(gateway, "LSPMESH_PUBLIC_URL").value).toBe(`https://${ingress.spec.rules[0].host}`);
  });
});

describeChart("ci/extensions-values.yaml: the pod settings of every workload", () => {
  const { objects } = rendered.get("extensions-values.yaml")!;
  const [gateway] = ofComponent(objects, "gateway");
  const [nats] = ofComponent(objects, "nats");
  const runners = ofComponent(objects, "runner");
  const python = runners.find((w) => w.metadata.name === "lspmesh-runner-python")!;

  test("annotations and labels added to the pod template, the chart's labels kept", () => {
    for (const workload of [gateway!, nats!, ...runners]) {
      const metadata = workload.spec.template.metadata;
      expect(metadata.annotations["example.com/owner"], workload.metadata.name).toBe("platform");
      expect(metadata.labels).toMatchObject(workload.spec.selector.matchLabels);
    }
    expect(gateway!.spec.template.metadata.labels["example.com/team"]).toBe("tools");
    expect(python.spec.template.metadata.annotations["checksum/languages"]).toMatch(/^[0-9a-f]{64}$/);
  });

  test("variables, volumes and mounts added after the chart's", () => {
    expect(containerOf(gateway!).env.at(-1)).toEqual({ name: "NODE_OPTIONS", value: "--max-old-space-size=384" });
    expect(podOf(gateway!).volumes.at(-1)).toEqual({ name: "extra-ca", configMap: { name: "corporate-ca" } });
    expect(containerOf(gateway!).volumeMounts.at(-1)).toMatchObject({ name: "extra-ca", readOnly: true });
    expect(podOf(nats!).volumes.at(-1)).toEqual({ name: "scratch", emptyDir: { sizeLimit: "16Mi" } });
    for (const runner of runners) expect(envOf(containerOf(runner), "LSPMESH_EXTRA").value).toBe("1");
  });

  test("scheduling: classes, node selection, tolerations, affinity, spread; a pool's own settings win over runner's", () => {
    expect(podOf(gateway!)).toMatchObject({
      priorityClassName: "lspmesh-critical",
      runtimeClassName: "gvisor",
      nodeSelector: { "example.com/pool": "general" },
      tolerations: [expect.objectContaining({ key: "example.com/dedicated" })],
      affinity: { nodeAffinity: expect.any(Object) },
      topologySpreadConstraints: [expect.objectContaining({ maxSkew: 2, whenUnsatisfiable: "DoNotSchedule" })],
    });
    const typescript = runners.find((w) => w.metadata.name === "lspmesh-runner-typescript")!;
    expect(podOf(typescript)).toMatchObject({
      priorityClassName: "lspmesh-runners",
      nodeSelector: { "example.com/pool": "runners" },
    });
    expect(podOf(typescript).topologySpreadConstraints).toBeUndefined();
    expect(podOf(python)).toMatchObject({ priorityClassName: "lspmesh-runners", runtimeClassName: "kata" });
    expect(podOf(python).nodeSelector).toEqual({ "example.com/pool": "python" });
    expect(podOf(python).topologySpreadConstraints).toHaveLength(1);
    expect(podOf(nats!).tolerations).toEqual([{ key: "example.com/dedicated", operator: "Exists" }]);
  });

  test("security contexts merged over the chart's: still restricted", () => {
    expect(podOf(gateway!).securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 20001,
      runAsGroup: 20001,
      supplementalGroups: [20002],
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(containerOf(gateway!).securityContext.seLinuxOptions).toEqual({
      type: "container_t",
      level: "s0:c123,c456",
    });
    expect(containerOf(python).securityContext).toMatchObject({ runAsUser: 10002, readOnlyRootFilesystem: true });
  });

  test("an HTTPRoute to the gateway's Service", () => {
    const route = named(objects, "HTTPRoute", "lspmesh-gateway")!;
    expect(route.spec.parentRefs).toEqual([{ name: "public", namespace: "gateways", sectionName: "https" }]);
    expect(route.spec.rules[0].backendRefs).toEqual([{ name: "lspmesh-gateway", port: 80 }]);
  });
});

describeChart("values", () => {
  test("no chart dependency (NATS is the chart's own), so no Chart.lock", () => {
    const chart = parse(readFileSync(join(CHART, "Chart.yaml"), "utf8"));
    expect(chart.dependencies).toBeUndefined();
    expect(readdirSync(CHART)).not.toEqual(expect.arrayContaining(["Chart.lock"]));
    expect(readdirSync(CHART)).not.toContain("charts");
  });

  test("there are scenarios for external NATS, dedicated pools, production and the extension points", () => {
    expect(SCENARIOS).toEqual(
      expect.arrayContaining([
        "default-values.yaml",
        "external-nats-values.yaml",
        "dedicated-pools-values.yaml",
        "production-values.yaml",
        "extensions-values.yaml",
      ]),
    );
  });

  const defaultPool = byDefault.values.pools[0];
  const pool = (changes: Values) => ({ ...defaultPool, ...changes });
  test.each([
    ["an unknown language family", { pools: [pool({ family: "java" })] }, /family.*allowed values/],
    ["a tenant id that is no path segment", { pools: [pool({ tenants: ["Acme Corp"] })] }, /tenants\/0.*must match/],
    [
      "a pool without resources",
      { pools: [pool({ resources: undefined })] },
      /must have required property 'resources'/,
    ],
    ["no NATS at all", { nats: { enabled: false } }, /externalNats/],
    ["a typo", { gateway: { replica: 3 } }, /must NOT have additional properties/],
    ["a plain-HTTP JWKS", { gateway: { auth: { jwt: { jwksUrl: "http://idp/jwks" } } } }, /jwksUrl.*must match/],
    [
      "a JWKS without issuer and audience",
      { gateway: { auth: { jwt: { jwksUrl: "https://idp/jwks" } } } },
      /jwt\/issuer.*must NOT have fewer than 1 characters/,
    ],
    // Tenants and API keys live in the control plane (lspmesh admin), not in values.
    ["tenants as values", { tenants: { acme: { workspaces: ["web"] } } }, /must NOT have additional properties/],
    ["an API keys Secret", { gateway: { auth: { apiKeysSecret: "keys" } } }, /must NOT have additional properties/],
    ["NATS passwords", { natsAuth: { passwordsSecret: "p" } }, /must NOT have additional properties/],
    ["two NATS servers (no quorum)", { nats: { replicas: 2 } }, /nats\/replicas.*allowed values/],
    ["a root container", { gateway: { containerSecurityContext: { runAsUser: 0 } } }, /runAsUser.*must be >= 1/],
    ["privilege escalation", { nats: { containerSecurityContext: { allowPrivilegeEscalation: true } } }, /constant/],
    ["a writable root", { runner: { containerSecurityContext: { readOnlyRootFilesystem: false } } }, /constant/],
    [
      "an added capability",
      { gateway: { containerSecurityContext: { capabilities: { add: ["SYS_ADMIN"] } } } },
      /constant/,
    ],
    ["no seccomp", { gateway: { podSecurityContext: { seccompProfile: { type: "Unconfined" } } } }, /allowed values/],
    ["a hostPath volume", { nats: { extraVolumes: [{ name: "h", hostPath: { path: "/" } }] } }, /property name/],
    ["an Ingress without hosts", { gateway: { ingress: { enabled: true } } }, /ingress.*hosts/],
    ["an HTTPRoute without a Gateway", { gateway: { httpRoute: { enabled: true } } }, /httpRoute.*parentRefs/],
    // Calls in flight must be able to finish while a runner drains.
    [
      "a drain shorter than the call deadline",
      { runner: { drainMs: 10_000 } },
      /runner.drainMs \(10000\) must be at least/,
    ],
  ])("the chart refuses %s", (_what, change, message) => {
    expect(() => helmTemplate(CHART, { values: [JSON.parse(JSON.stringify(change))] })).toThrow(message);
  });

  test("the schema admits what restricted admits: a Localhost seccomp profile, NET_BIND_SERVICE, another uid", () => {
    const security = {
      podSecurityContext: { runAsUser: 4242, seccompProfile: { type: "Localhost", localhostProfile: "p.json" } },
      containerSecurityContext: { capabilities: { add: ["NET_BIND_SERVICE"] } },
    };
    const { objects } = helmTemplate(CHART, { values: [{ gateway: security }] });
    const gateway = ofComponent(objects, "gateway")[0]!;
    expect(podOf(gateway).securityContext.seccompProfile).toEqual({ type: "Localhost", localhostProfile: "p.json" });
    expect(containerOf(gateway).securityContext.capabilities).toEqual({ drop: ["ALL"], add: ["NET_BIND_SERVICE"] });
  });
});
