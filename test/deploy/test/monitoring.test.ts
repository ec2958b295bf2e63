// The monitoring that ships: the alert rules (deploy/monitoring/alerts.yaml) and the Grafana
// dashboard (deploy/monitoring/grafana), checked against what the services really export (metric
// and label names, error codes, tool names), the runbooks in docs/operations.md, and their copies
// in the kustomize component (components/alerts, in overlays/prod) and the Helm chart (rendered).
// promtool checks the rules and runs their unit tests (deploy/monitoring/alerts.test.yaml).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { needs } from "@lspmesh/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { errorCodes, exportedSeries, TARGET_LABELS, toolNames } from "../src/exportedMetrics.js";
import { helmTemplate } from "../src/helmTemplate.js";
import { schemaProblem } from "../src/kubernetesSchemas.js";
import { render } from "../src/kustomize.js";
import { repoPath } from "../src/repo.js";

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Array<{ expr: string; datasource?: { uid: string } }>;
  panels?: Panel[];
}

const read = (path: string) => readFileSync(repoPath(path), "utf8");
const RULES_FILE = "deploy/monitoring/alerts.yaml";
const DASHBOARD_FILE = "deploy/monitoring/grafana/lspmesh-dashboard.json";
const SYNC = "run deploy/monitoring/sync-copies.sh";
const RUNBOOKS = "https://github.com/lspmesh/lspmesh/blob/main/docs/operations.md#";
/** Grafana's reference to the dashboard's data-source variable. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template.
const DATASOURCE = "${datasource}";

const groups = (parse(read(RULES_FILE)) as { groups: Array<{ name: string; rules: Rule[] }> }).groups;
const alerts = groups.flatMap((group) => group.rules);
const dashboard = JSON.parse(read(DASHBOARD_FILE)) as {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown; definition?: string }> };
};
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const dashboardQueries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

const series = exportedSeries();
const codes = errorCodes();
const tools = toolNames();
const targetLabels: readonly string[] = TARGET_LABELS;
const anyLabel = new Set([...targetLabels, ...[...series.values()].flatMap((labels) => [...labels])]);

/** What in a PromQL expression is not exported: metrics, labels, error codes, tool names. */
function unknownIn(expr: string): string[] {
  const problems: string[] = [];
  for (const [, name] of expr.matchAll(/\b(lspmesh_\w+)/g)) if (!series.has(name!)) problems.push(`metric ${name}`);
  for (const [, name, matchers] of expr.matchAll(/\b(lspmesh_\w+)\{([^}]*)\}/g)) {
    for (const [, label, value] of matchers!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)\s*"([^"]*)"/g)) {
      if (!series.get(name!)?.has(label!) && !targetLabels.includes(label!)) problems.push(`label ${name}{${label}}`);
      const known = label === "code" ? codes : label === "tool" ? tools : undefined;
      for (const one of known ? value!.split("|") : []) if (!known!.includes(one)) problems.push(`${label} "${one}"`);
    }
  }
  for (const [, list] of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
    for (const label of list!.split(",").map((part) => part.trim())) {
      if (label && !anyLabel.has(label)) problems.push(`label ${label} (in by/without)`);
    }
  }
  return problems;
}

/** GitHub's anchor of a Markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

describe("the alert rules", () => {
  test("the sources name what the services export (the parser finds the metrics)", () => {
    expect([...series.keys()]).toEqual(
      expect.arrayContaining(["lspmesh_tool_calls_total", "lspmesh_tool_call_duration_seconds_bucket"]),
    );
    expect(series.get("lspmesh_tool_errors_total")).toEqual(new Set(["tool", "tenant", "code"]));
    expect(codes).toContain("RESOURCE_EXHAUSTED");
    expect(tools).toEqual(expect.arrayContaining(["hover", "diagnostics", "restart_language_server", "batch"]));
    expect(
      unknownIn('sum by (tenant, colour) (lspmesh_tool_errors_total{code="OOPS", shape="x"}) + lspmesh_nope'),
    ).toEqual([
      "metric lspmesh_nope",
      'code "OOPS"',
      "label lspmesh_tool_errors_total{shape}",
      "label colour (in by/without)",
    ]);
  });

  test("cover what an operator is woken for", () => {
    expect(alerts.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        "LspmeshRunnerDown",
        "LspmeshRegistryOutage",
        "LspmeshToolErrorRatioHigh",
        "LspmeshToolLatencyHigh",
        "LspmeshLanguageServerRestartLoop",
        "LspmeshDiagnosticsOutboxGrowing",
        "LspmeshTenantResourceExhausted",
      ]),
    );
    expect(new Set(alerts.map((rule) => rule.alert)).size).toBe(alerts.length);
  });

  test.each(alerts.map((rule) => [rule.alert, rule] as const))(
    "%s uses only exported metrics and labels",
    (_name, rule) => {
      expect(unknownIn(rule.expr)).toEqual([]);
    },
  );

  test.each(alerts.map((rule) => [rule.alert, rule] as const))(
    "%s has a severity, a summary, a description and its runbook",
    (name, rule) => {
      expect(["critical", "warning", "info"]).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      expect(rule.annotations?.runbook_url).toBe(`${RUNBOOKS}${name.toLowerCase()}`);
      const anchors = [...read("docs/operations.md").matchAll(/^#{2,4} (.+)$/gm)].map((m) => anchorOf(m[1]!));
      expect(anchors).toContain(name.toLowerCase());
    },
  );
});

describe("the dashboard", () => {
  test("is a recent Grafana dashboard with unique panel ids, every query on the datasource variable", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list.find((variable) => variable.name === "datasource")).toMatchObject({
      type: "datasource",
      query: "prometheus",
    });
    for (const panel of panels.filter((panel) => panel.type !== "row")) {
      expect(panel.datasource?.uid, panel.title).toBe(DATASOURCE);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid, panel.title).toBe(DATASOURCE);
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
    }
  });

  test("queries only exported metrics and labels", () => {
    const variables = dashboard.templating.list.flatMap((variable) => variable.definition ?? []);
    expect(
      [...dashboardQueries, ...variables].flatMap((expr) => unknownIn(expr).map((p) => `${p} in ${expr}`)),
    ).toEqual([]);
  });

  test("shows what the operator needs", () => {
    const used = (metric: string) => dashboardQueries.some((expr) => expr.includes(metric));
    for (const metric of [
      "lspmesh_tool_calls_total",
      "lspmesh_tool_call_duration_seconds_bucket",
      "lspmesh_runners_live",
      "lspmesh_runner_up",
      "lspmesh_runner_registry_outage",
      "lspmesh_runner_language_servers",
      "lspmesh_runner_language_server_restarts_total",
      "lspmesh_runner_answer_cache_total",
      "lspmesh_runner_diagnostics_outbox_messages",
      "lspmesh_runner_diagnostics_dropped_total",
      "lspmesh_rate_limited_total",
    ]) {
      expect(used(metric), metric).toBe(true);
    }
  });
});

describe("the copies: kustomize component (overlays/prod) and Helm chart", () => {
  const prod = render("overlays/prod");

  test("overlays/prod has the PrometheusRule, valid for the Prometheus Operator, with alerts.yaml's groups", () => {
    const rules = prod.filter((object) => object.kind === "PrometheusRule");
    expect(rules.map((rule) => rule.metadata.name)).toEqual(["lspmesh"]);
    expect(schemaProblem(rules[0]!)).toBeUndefined();
    expect(rules[0]!.spec.groups, SYNC).toEqual(groups);
  });

  test("overlays/prod has the dashboard ConfigMap for Grafana's sidecar", () => {
    const configMap = prod.find((object) => object.metadata.name === "lspmesh-grafana-dashboard")!;
    expect(configMap.kind).toBe("ConfigMap");
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: "1" });
    expect(JSON.parse(configMap.data["lspmesh-dashboard.json"]), SYNC).toEqual(dashboard);
  });

  test.each([
    [RULES_FILE, "helm/lspmesh/files/alerts.yaml"],
    [DASHBOARD_FILE, "helm/lspmesh/files/lspmesh-dashboard.json"],
    [DASHBOARD_FILE, "deploy/kustomize/components/alerts/lspmesh-dashboard.json"],
  ])("%s is copied to %s", (source, copy) => {
    expect(read(copy) === read(source), SYNC).toBe(true);
  });

  // Rendered as `helm template` renders them (src/helmTemplate.ts).
  test("the chart renders neither by default", () => {
    const objects = helmTemplate(repoPath("helm/lspmesh")).objects;
    expect(objects.filter((object) => object.kind === "PrometheusRule")).toEqual([]);
    expect(objects.filter((object) => object.metadata.name.endsWith("grafana-dashboard"))).toEqual([]);
  });

  test("the chart, enabled: the PrometheusRule with its labels, the dashboard ConfigMap for Grafana's sidecar", () => {
    const monitoring = {
      prometheusRule: { enabled: true, labels: { release: "kube-prometheus-stack" } },
      grafanaDashboard: { enabled: true, namespace: "monitoring", labels: { team: "platform" } },
    };
    const objects = helmTemplate(repoPath("helm/lspmesh"), { values: [{ monitoring }] }).objects;
    const rule = objects.find((object) => object.kind === "PrometheusRule")!;
    expect(schemaProblem(rule)).toBeUndefined();
    expect(rule.metadata.labels).toMatchObject({
      release: "kube-prometheus-stack",
      "app.kubernetes.io/name": "lspmesh",
    });
    expect(rule.spec.groups, SYNC).toEqual(groups);
    const configMap = objects.find((object) => object.metadata.name === "lspmesh-grafana-dashboard")!;
    expect(schemaProblem(configMap)).toBeUndefined();
    expect(configMap.metadata).toMatchObject({
      namespace: "monitoring",
      labels: { grafana_dashboard: "1", team: "platform" },
    });
    expect(JSON.parse(configMap.data["lspmesh-dashboard.json"]), SYNC).toEqual(dashboard);
  });
});

describe.skipIf(!needs("promtool", "the alert rules' promtool checks"))("promtool", () => {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-promtool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const promtool = (...args: string[]) =>
    execFileSync("promtool", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  test("checks the rules", () => {
    expect(promtool("check", "rules", repoPath(RULES_FILE))).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  test("the unit tests pass: each alert fires on its series and not on the others", () => {
    // The expected alerts give labels only: the annotations are checked above.
    const bare = groups.map((group) => ({ ...group, rules: group.rules.map(({ annotations, ...rule }) => rule) }));
    writeFileSync(join(dir, "alerts.yaml"), stringify({ groups: bare }));
    copyFileSync(repoPath("deploy/monitoring/alerts.test.yaml"), join(dir, "alerts.test.yaml"));
    expect(promtool("test", "rules", "alerts.test.yaml")).toContain("SUCCESS");
  });

  test("every dashboard query is valid PromQL", () => {
    const rules = dashboardQueries.map((expr, index) => ({
      record: `lspmesh_dashboard:query_${index}`,
      expr: expr.replaceAll("$__rate_interval", "5m").replaceAll("$namespace", ".*"),
    }));
    writeFileSync(join(dir, "dashboard.yaml"), stringify({ groups: [{ name: "dashboard", rules }] }));
    expect(promtool("check", "rules", "dashboard.yaml")).toContain("SUCCESS");
  });
});
