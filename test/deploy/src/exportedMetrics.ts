// What the services export, read from their sources: every prom-client metric they register
// (name and label names), the stable error codes and the MCP tool names (values of the `code` and
// `tool` labels). The alert rules and the dashboard are checked against these.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoPath } from "./repo.js";

/** Labels Prometheus adds to every scraped series (the Prometheus Operator's target labels included). */
export const TARGET_LABELS = ["namespace", "pod", "instance", "job", "service", "container", "endpoint"] as const;

/** Every series name the services export, with the label names it carries (its own, not the target's). */
export function exportedSeries(): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const file of sourceFiles(["services/gateway/src", "services/lsp-runner/src"])) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/new (Counter|Gauge|Histogram|Summary)\b[^(]*\(\{/g)) {
      // The options up to `registers` hold the name and the label names.
      const options = text.slice(match.index, text.indexOf("registers", match.index));
      const name = options.match(/name: "(\w+)"/)?.[1];
      if (!name) continue;
      const labels = [...(options.match(/labelNames: \[([^\]]*)\]/)?.[1] ?? "").matchAll(/"(\w+)"/g)].map((m) => m[1]!);
      for (const [suffix, extra] of seriesOf(match[1]!)) series.set(`${name}${suffix}`, new Set([...labels, ...extra]));
    }
  }
  return series;
}

/** The series a metric type makes, and the labels each adds. */
function seriesOf(type: string): Array<[string, string[]]> {
  if (type === "Histogram")
    return [
      ["_bucket", ["le"]],
      ["_sum", []],
      ["_count", []],
    ];
  if (type === "Summary")
    return [
      ["", ["quantile"]],
      ["_sum", []],
      ["_count", []],
    ];
  return [["", []]];
}

/** The stable error codes of the MCP tools (the `code` label of lspmesh_tool_errors_total). */
export function errorCodes(): string[] {
  const contract = readFileSync(repoPath("proto/src/contract.ts"), "utf8");
  const list = contract.match(/export const ERROR_CODES = \[([\s\S]*?)\] as const/)?.[1] ?? "";
  return [...list.matchAll(/^\s*"(\w+)",/gm)].map((m) => m[1]!);
}

/** The gateway's MCP tool names (the `tool` label). */
export function toolNames(): string[] {
  return sourceFiles(["services/gateway/src/mcp/tools"]).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^\s+name: "([a-z_]+)",$/gm)].map((m) => m[1]!),
  );
}

/** The TypeScript sources (tests left out) under these repository folders. */
function sourceFiles(dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(repoPath(dir), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .map((file) => join(repoPath(dir), file)),
  );
}
