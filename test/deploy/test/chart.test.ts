// The Helm chart (helm/lspmesh), checked without the helm binary (it cannot be installed here;
// `helm lint` and `helm template` are on the release checklist in docs/deploy.md): values.yaml and
// every ci/*-values.yaml, merged the way helm merges them, satisfy values.schema.json, the schema
// refuses bad values, and the chart's templates make the workloads the kustomize base makes, with
// the same settings, mounts, probes, hardening and NATS permissions.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { natsUserPermissions } from "@lspmesh/events";
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
    ["neither API keys nor JWTs", { gateway: { auth: { apiKeysSecret: "" } } }, /must match a schema in anyOf/],
    ["a plain-HTTP JWKS", { gateway: { auth: { jwt: { jwksUrl: "http://idp/jwks" } } } }, /jwksUrl must match/],
    ["a tenant without workspaces", { tenants: { acme: { workspaces: [] } } }, /workspaces must NOT have fewer/],
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

  test("its NATS users get exactly the permissions lspmesh's generator writes (lspmesh nats-auth)", () => {
    const chart = template("nats-authorization.yaml");
    const [id, tenant] = ["lspmesh-runner-x-0", "tnt"];
    const filled = chart.replaceAll("{{ $user }}", id).replaceAll("{{ $tenant }}", tenant);
    /** The quoted subjects of the allow list on the line after `marker` (the n-th such list). */
    const allow = (marker: string, kind: "publish" | "subscribe") => {
      const block = filled.slice(filled.indexOf(marker));
      const line = block.split("\n").find((text) => text.trimStart().startsWith(`${kind}: { allow:`))!;
      return [...line.replace(/\{\{ (range|if) [^}]+\}\}.*?\{\{ end \}\}/g, "").matchAll(/"([^"]+)"/g)]
        .map((m) => m[1]!)
        .filter((subject) => !subject.includes("lspmesh-symbols-"));
    };
    const scoped = (pattern: string) =>
      [...chart.matchAll(new RegExp(pattern, "g"))].map((m) => m[1]!.replace("%s", tenant));
    // The symbol index's subjects (one bucket per tenant) are written by ranges over the tenants,
    // which this textual reading cannot expand: compared apart, below.
    const indexSubject = (subject: string) => subject.includes("lspmesh-symbols-") || subject === "$JS.API.STREAM.LIST";
    const withoutIndex = (permissions: { publish: string[]; subscribe: string[]; responses?: boolean }) => ({
      ...permissions,
      publish: permissions.publish.filter((subject) => !indexSubject(subject)),
    });
    // A runner's control-plane subjects (a consumer filter per tenant of its pool, or every tenant's)
    // come from a list the chart builds per runner: compared apart too, below.
    const controlSubject = (subject: string) => subject.includes("KV_lspmesh-control");
    const withoutControl = (permissions: { publish: string[]; subscribe: string[]; responses?: boolean }) => ({
      ...permissions,
      publish: permissions.publish.filter((subject) => !controlSubject(subject)),
    });
    const generated = natsUserPermissions({ runners: [{ id }, { id, tenants: [tenant] }], tenants: [tenant] });
    const [gateway, sharedAll, dedicatedAll, ci, writer] = generated.map(withoutIndex);
    const [shared, dedicated] = [sharedAll!, dedicatedAll!].map(withoutControl);
    const index = [...new Set(generated.flatMap((user) => user.publish.filter(indexSubject)))];
    for (const subject of index)
      expect(chart).toContain(`"${subject.replaceAll(`-${tenant}`, "-{{ $t }}")}"`.replace('"{{ $t }}', '"'));
    expect(chart).toContain('{{ if not $runner.tenants }}, "$JS.API.STREAM.LIST"{{ end }}');
    expect(allow('user: "gateway"', "publish")).toEqual(gateway!.publish);
    expect(allow('user: "gateway"', "subscribe")).toEqual(gateway!.subscribe);
    // A runner: the fixed subjects, then those of every tenant (or of its pool's tenants).
    const fixed = allow('user: "{{ $user }}"'.replace("{{ $user }}", id), "publish").filter(
      (subject) => !controlSubject(subject),
    );
    // A claim's `%s` are the tenant (filled in by scoped), then the runner id; `*.%s`: the runner id.
    const claim = (subject: string) => subject.replace("%s", id).replace(`*.${tenant}`, `*.${id}`);
    const everyTenant = [
      ...scoped('\\$publish = list \\(printf "([^"]+)" \\$user\\)').map(claim),
      ...scoped('\\$publish = list \\([^)]+\\) "([^"]+)" "[^"]+"'),
      ...scoped('\\$publish = list \\([^)]+\\) "[^"]+" "([^"]+)"'),
    ];
    expect([...fixed, ...everyTenant]).toEqual(shared!.publish);
    const dedicatedScoped = [
      ...scoped('\\(printf "(\\$KV\\.lspmesh-runner-claims\\.%s\\.%s)" \\$t \\$user\\)').map(claim),
      ...scoped('\\(printf "(lspmesh\\.(?:diag|status)\\.%s\\.[^"]+)" \\$t\\)'),
    ];
    expect([...fixed, ...dedicatedScoped]).toEqual(dedicated!.publish);
    // The control plane: the runner's line expanded over its filters, `workspaces.<tenant>.*` or `workspaces.>`.
    const [, info, each, after] =
      /"(\$JS\.API\.STREAM\.INFO\.KV_lspmesh-control)"\{\{ range \$control \}\}, "([^"]+)"\{\{ end \}\}((?:, "[^"]+")*)\] \}/.exec(
        chart,
      ) ?? [];
    const control = (filters: string[]) => [
      info,
      ...filters.map((filter) => each!.replace("{{ . }}", filter)),
      ...[...(after ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    ];
    expect(control(scoped('\\$control = list "([^"]+)"'))).toEqual(sharedAll!.publish.filter(controlSubject));
    expect(control(scoped('\\$control = append \\$control \\(printf "([^"]+)" \\$t\\)'))).toEqual(
      dedicatedAll!.publish.filter(controlSubject),
    );
    const inbox = allow(`user: "${id}"`, "subscribe");
    expect([...inbox, ...scoped('\\$subscribe = list "([^"]+)"')]).toEqual(shared!.subscribe);
    expect([...inbox, ...scoped('\\(printf "(lspmesh\\.fs\\.%s\\.[^"]+)" \\$t\\)')]).toEqual(dedicated!.subscribe);
    expect(shared!.responses && chart.includes("allow_responses: true")).toBe(true);
    for (const [user, permissions] of [
      [`ci-${tenant}`, ci!],
      [`writer-${tenant}`, writer!],
    ] as const) {
      expect(allow(`user: "${user}"`, "publish")).toEqual(permissions.publish);
      expect(allow(`user: "${user}"`, "subscribe")).toEqual(permissions.subscribe);
    }
  });
});
