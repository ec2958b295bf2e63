// The Helm chart (helm/lspmesh), checked without the helm binary (it cannot be installed here;
// `helm lint` and `helm template` are on the release checklist in docs/deploy.md): values.yaml and
// every ci/*-values.yaml, merged the way helm merges them, satisfy values.schema.json, the schema
// refuses bad values, and the chart's templates make the workloads the kustomize base makes, with
// the same settings, mounts, probes, hardening, NATS JWT configuration and credentials.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { type KubeObject, render, workloads } from "../src/kustomize.js";
import { repoPath } from "../src/repo.js";

const CHART = repoPath("helm/lspmesh");
const read = (path: string) => readFileSync(join(CHART, path), "utf8");
type Values = Record<string, unknown>;

/** Helm's value merge: maps merge key by key, anything else (lists included) replaces; null removes. */
function helmMerge(base: Values, override: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(override ?? {})) {
    const current = out[key];
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(current)) out[key] = helmMerge(current, value);
    else out[key] = value;
  }
  return out;
}
const isMap = (value: unknown): value is Values => typeof value === "object" && value !== null && !Array.isArray(value);

const defaults = parse(read("values.yaml")) as Values;
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(JSON.parse(read("values.schema.json")));
const problems = (values: Values) =>
  validate(values) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
const scenarios = readdirSync(join(CHART, "ci")).filter((file) => file.endsWith("-values.yaml"));

describe("values", () => {
  test("values.yaml satisfies values.schema.json", () => {
    expect(problems(defaults)).toEqual([]);
  });

  test.each(scenarios)("ci/%s satisfies values.schema.json", (file) => {
    expect(problems(helmMerge(defaults, (parse(read(`ci/${file}`)) as Values) ?? {}))).toEqual([]);
  });

  test("there are scenarios for external NATS and for dedicated pools", () => {
    expect(scenarios).toEqual(expect.arrayContaining(["external-nats-values.yaml", "dedicated-pools-values.yaml"]));
  });

  const pool = (changes: Values) => ({ ...(defaults.pools as Values[])[0], ...changes });
  test.each([
    ["an unknown language family", { pools: [pool({ family: "java" })] }, /family.*allowed values/],
    ["a tenant id that is no path segment", { pools: [pool({ tenants: ["Acme Corp"] })] }, /tenants\/0 must match/],
    [
      "a pool without resources",
      { pools: [pool({ resources: undefined })] },
      /must have required property 'resources'/,
    ],
    ["no NATS at all", { nats: { enabled: false } }, /externalNats/],
    ["a typo", { gateway: { replica: 3 } }, /must NOT have additional properties/],
    ["a plain-HTTP JWKS", { gateway: { auth: { jwt: { jwksUrl: "http://idp/jwks" } } } }, /jwksUrl must match/],
    [
      "a JWKS without issuer and audience",
      { gateway: { auth: { jwt: { jwksUrl: "https://idp/jwks" } } } },
      /jwt\/issuer must NOT have fewer than 1 characters/,
    ],
    // Tenants and API keys live in the control plane (lspmesh admin), not in values.
    ["tenants as values", { tenants: { acme: { workspaces: ["web"] } } }, /must NOT have additional properties/],
    ["an API keys Secret", { gateway: { auth: { apiKeysSecret: "keys" } } }, /must NOT have additional properties/],
    ["NATS passwords", { natsAuth: { passwordsSecret: "p" } }, /must NOT have additional properties/],
  ])("the schema refuses %s", (_what, change, message) => {
    const values = JSON.parse(JSON.stringify(helmMerge(defaults, change as Values)));
    expect(problems(values).join("\n")).toMatch(message);
  });
});

describe("the chart makes what the kustomize base makes", () => {
  const base = render("base");
  const templates = readdirSync(join(CHART, "templates"), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(yaml|tpl)$/.test(file))
    .map((file) => read(`templates/${file}`))
    .join("\n");
  const template = (name: string) => read(`templates/${name}`);
  const containerOf = (object: KubeObject) => object.spec.template.spec.containers[0];
  const component = (name: string) =>
    workloads(base).filter((w) => w.metadata.labels?.["app.kubernetes.io/component"] === name);

  test("every kind of object, the components' included", () => {
    const kinds = (text: string) => new Set([...text.matchAll(/^kind: (\w+)/gm)].map((match) => match[1]!));
    const baseKinds = new Set(base.map((object) => object.kind));
    for (const kind of baseKinds) {
      // NATS comes from the official chart (a dependency): its StatefulSet and Service are its own.
      expect(kinds(templates), kind).toContain(kind);
    }
    for (const kind of ["NetworkPolicy", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ServiceMonitor"]) {
      expect(kinds(templates)).toContain(kind);
    }
    const chart = parse(read("Chart.yaml"));
    expect(chart.dependencies).toEqual([expect.objectContaining({ name: "nats", condition: "nats.enabled" })]);
  });

  test("a gateway Deployment and one runner StatefulSet per pool, the pools of the base", () => {
    expect(component("gateway").map((w) => w.kind)).toEqual(["Deployment"]);
    expect(template("gateway.yaml")).toMatch(/^kind: Deployment/m);
    expect(template("runner-pools.yaml")).toMatch(/range \$pool := \.Values\.pools[\s\S]*^kind: StatefulSet/m);
    const basePools = component("runner").map((w) => w.metadata.labels!["lspmesh.dev/pool"]);
    expect((defaults.pools as Array<{ name: string }>).map((p) => p.name).sort()).toEqual(basePools.sort());
    for (const runner of component("runner")) {
      const pool = (defaults.pools as Values[]).find((p) => p.name === runner.metadata.labels!["lspmesh.dev/pool"])!;
      expect(pool.resources).toEqual(containerOf(runner).resources);
      expect((pool.image as Values).repository).toBe(containerOf(runner).image.split(":")[0]);
    }
    expect((defaults.gateway as Values).resources).toEqual(containerOf(component("gateway")[0]!).resources);
  });

  test.each([
    ["gateway", "gateway.yaml"],
    ["runner", "runner-pools.yaml"],
  ])("the %s gets the same settings, mounts, ports and probes", (name, file) => {
    const text = template(file);
    for (const workload of component(name)) {
      const container = containerOf(workload);
      for (const variable of container.env) expect(text, variable.name).toContain(`- name: ${variable.name}\n`);
      for (const mount of container.volumeMounts) {
        if (mount.subPath) continue;
        expect(text, mount.mountPath).toContain(`mountPath: ${mount.mountPath}`);
      }
      for (const port of container.ports) expect(text).toContain(`containerPort: ${port.containerPort}`);
      for (const probe of ["readinessProbe", "livenessProbe", "startupProbe"]) {
        const handler = container[probe].httpGet ?? container[probe].grpc;
        expect(text).toContain(handler.path ? `path: ${handler.path}` : `port: ${handler.port}`);
        if (handler.service) expect(text).toContain(`service: ${handler.service}`);
      }
    }
    expect(text).toContain('include "lspmesh.containerSecurity"');
    expect(text).toContain('include "lspmesh.podSecurity"');
    expect(text).toContain("automountServiceAccountToken: false");
  });

  test("the chart's hardening is the base's", () => {
    const helpers = template("_helpers.tpl");
    const gateway = component("gateway")[0]!;
    const block = (name: string) => parse(helpers.split(`define "${name}" -}}`)[1]!.split("{{- end -}}")[0]!);
    expect(block("lspmesh.containerSecurity")).toEqual(containerOf(gateway).securityContext);
    const runner = component("runner")[0]!;
    expect(block("lspmesh.podSecurity")).toEqual(runner.spec.template.spec.securityContext);
  });

  test("NATS: no user, password or tenant in the chart; the JWT configuration mounted where the include finds it", () => {
    expect(templates).not.toMatch(
      /authorization|password|PASSWORD|natsPasswordVar|tenants\.json|TENANTS_FILE|API_KEYS/,
    );
    const nats = (defaults.nats ?? {}) as Values;
    const include = ((nats.config as Values).merge as Values).$include as string;
    const mount = ((nats.container as Values).patch as Values[]).map((op) => op.value as Values);
    const volume = ((nats.podTemplate as Values).patch as Values[]).map((op) => op.value as Values);
    expect(mount).toEqual([expect.objectContaining({ name: "lspmesh-nats-jwt", readOnly: true })]);
    expect(volume).toEqual([{ name: "lspmesh-nats-jwt", configMap: { name: "lspmesh-nats-jwt" } }]);
    // The official chart's configuration sits in a folder of /etc; the include climbs out of it.
    expect(posix.join("/etc/nats-config", include)).toBe(`${mount[0]!.mountPath}/nats-jwt.conf`);
    // The same ConfigMap and file the kustomize NATS mounts.
    const baseNats = workloads(base).find((w) => w.metadata.labels?.["app.kubernetes.io/component"] === "nats")!;
    const jwt = baseNats.spec.template.spec.volumes.find((v: Values) => v.name === "jwt") as Values;
    expect((jwt.configMap as Values).name).toBe("lspmesh-nats-jwt");
    expect(JSON.stringify(nats)).not.toMatch(/envFrom|secretRef/);
  });

  test("credentials: the gateway's creds Secret, each pool's own creds Secret and gRPC key, ids <pool>.<pod name>", () => {
    const pools = template("runner-pools.yaml");
    expect(pools).toContain("value: {{ $pool.name }}.$(POD_NAME)");
    expect(pools).toContain("secretName: {{ $fullname }}-nats-runner-{{ $pool.name }}");
    expect(pools).toContain("secretName: {{ $.Values.grpc.runnerSecretsName }}");
    expect(pools).toMatch(/items:\n\s+- key: \{\{ \$pool\.name \}\}\n\s+path: \{\{ \$pool\.name \}\}\n/);
    expect(template("gateway.yaml")).toContain("secretName: {{ .Values.natsAuth.gatewaySecret }}");
    expect(template("gateway.yaml")).toMatch(/- name: LSPMESH_CONTROL\n\s+value: nats\n/);
    expect(template("gateway.yaml")).toMatch(/- name: LSPMESH_GRPC_PER_RUNNER_SECRETS\n\s+value: "1"\n/);
    // With release name "lspmesh", the names the kustomize base uses.
    const secretOf = (workload: KubeObject, volume: string) =>
      workload.spec.template.spec.volumes.find((v: Values) => v.name === volume).secret.secretName;
    const gateway = component("gateway")[0]!;
    expect(secretOf(gateway, "nats")).toBe((defaults.natsAuth as Values).gatewaySecret);
    expect(secretOf(gateway, "grpc")).toBe((defaults.grpc as Values).secretName);
    for (const runner of component("runner")) {
      const pool = runner.metadata.labels!["lspmesh.dev/pool"];
      expect(secretOf(runner, "nats")).toBe(`lspmesh-nats-runner-${pool}`);
      expect(secretOf(runner, "grpc")).toBe((defaults.grpc as Values).runnerSecretsName);
    }
  });
});
