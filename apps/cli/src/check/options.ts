// `lspmesh check` command line → CheckOptions. Pure: every mistake is a UsageError (exit 2)
// naming the fix.
import { resolve } from "node:path";
import { ID_PATTERN } from "@lspmesh/proto";
import { parseCommandFlags, UsageError } from "../usage.js";
import { FAIL_ON_LEVELS, type FailOn } from "./findings.js";
import { FORMATS, type FormatName } from "./formats/index.js";

export interface GatewayOptions {
  url: URL;
  token?: string;
  workspace?: string;
  baseWorkspace?: string;
}

export interface CheckOptions {
  dir: string;
  /** Named files; ["-"] reads them from stdin. */
  files?: string[];
  changedSince?: string;
  base?: string;
  failOn: FailOn;
  format: FormatName;
  /** Extra reports written to files. */
  reports: Array<{ format: FormatName; file: string }>;
  timeoutMs: number;
  allowIncomplete: boolean;
  includeHints: boolean;
  gateway?: GatewayOptions;
  /** JSON file overriding or adding language servers (embedded mode). */
  languagesFile?: string;
  help: boolean;
}

/** Overall default for --timeout: long enough for a cold TypeScript project, in ms. */
export const DEFAULT_TIMEOUT_MS = 300_000;

export function parseCheckArgs(args: string[], env: NodeJS.ProcessEnv): CheckOptions {
  const { files, rest } = extractFiles(args);
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(rest);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument '${positionals[0]}': name files with --files (e.g. --files src/a.ts src/b.ts)`,
    );
  }
  if (files && values["changed-since"]) throw new UsageError("give --files or --changed-since, not both");
  if (values.languages && values.gateway) {
    throw new UsageError("--languages configures embedded language servers; a gateway's runners have their own");
  }

  const failOn = (values["fail-on"] ?? "error") as FailOn;
  if (!FAIL_ON_LEVELS.includes(failOn)) {
    throw new UsageError(`--fail-on must be one of ${FAIL_ON_LEVELS.join(", ")} (got '${values["fail-on"]}')`);
  }
  const format = parseFormat(values.format ?? "text", "--format");
  const reports = (values.report ?? []).map(parseReport);
  if (values["summary-md"]) reports.push({ format: "summary-md", file: values["summary-md"] });

  return {
    dir: resolve(values.dir ?? "."),
    ...(files ? { files } : {}),
    ...(values["changed-since"] ? { changedSince: values["changed-since"] } : {}),
    ...(values.base ? { base: values.base } : {}),
    failOn,
    format,
    reports,
    timeoutMs: parseDuration(values.timeout),
    allowIncomplete: values["allow-incomplete"] ?? false,
    includeHints: values["include-hints"] ?? false,
    ...gatewayOptions(values, env),
    ...(values.languages ? { languagesFile: values.languages } : {}),
    help: values.help ?? false,
  };
}

function parseFlags(args: string[]) {
  return parseCommandFlags({
    args,
    allowPositionals: true,
    options: {
      dir: { type: "string" },
      "changed-since": { type: "string" },
      base: { type: "string" },
      "fail-on": { type: "string" },
      format: { type: "string" },
      report: { type: "string", multiple: true },
      "summary-md": { type: "string" },
      timeout: { type: "string" },
      "allow-incomplete": { type: "boolean" },
      "include-hints": { type: "boolean" },
      gateway: { type: "string" },
      workspace: { type: "string" },
      "base-workspace": { type: "string" },
      "token-env": { type: "string" },
      languages: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** `--files a b c` takes every argument up to the next option; `--files -` reads stdin. */
function extractFiles(args: string[]): { files?: string[]; rest: string[] } {
  const index = args.indexOf("--files");
  if (index < 0) return { rest: args };
  let end = index + 1;
  while (end < args.length && !(args[end]!.startsWith("--") && args[end]!.length > 2)) end++;
  const files = args.slice(index + 1, end);
  if (files.length === 0) throw new UsageError("--files needs at least one path, or - to read paths from stdin");
  if (files.includes("-") && files.length > 1)
    throw new UsageError("--files - reads the list from stdin; name no other files");
  const rest = [...args.slice(0, index), ...args.slice(end)];
  if (rest.includes("--files")) throw new UsageError("give --files once, with every path after it");
  return { files, rest };
}

function parseFormat(name: string, flag: string): FormatName {
  if (!(FORMATS as readonly string[]).includes(name)) {
    throw new UsageError(`${flag}: unknown format '${name}'; use one of ${FORMATS.join(", ")}`);
  }
  return name as FormatName;
}

function parseReport(spec: string): { format: FormatName; file: string } {
  const colon = spec.indexOf(":");
  if (colon <= 0 || colon === spec.length - 1) {
    throw new UsageError(`--report takes FORMAT:FILE, e.g. sarif:lspmesh.sarif (got '${spec}')`);
  }
  return { format: parseFormat(spec.slice(0, colon), "--report"), file: spec.slice(colon + 1) };
}

/** "300", "300s", "5m", "1500ms" → ms. Bare numbers are seconds. */
export function parseDuration(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  const value = match ? Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] ?? "s"]! : Number.NaN;
  if (!(value > 0)) throw new UsageError(`--timeout '${text}' is not a duration: use e.g. 300 (seconds), 90s, 5m`);
  return Math.round(value);
}

function gatewayOptions(
  values: ReturnType<typeof parseFlags>["values"],
  env: NodeJS.ProcessEnv,
): { gateway?: GatewayOptions } {
  const url = values.gateway;
  if (!url) {
    for (const flag of ["workspace", "base-workspace", "token-env"] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} only applies with --gateway URL`);
    }
    return {};
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `--gateway '${url}' is not a URL: give the MCP endpoint, e.g. https://lspmesh.example.com/mcp`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`--gateway must be an http(s) URL (got '${url}')`);
  }
  for (const flag of ["workspace", "base-workspace"] as const) {
    const id = values[flag];
    if (id !== undefined && !ID_PATTERN.test(id)) {
      throw new UsageError(`--${flag} '${id}' is not a workspace id: use a-z, 0-9, '_' and '-' (1–63 characters)`);
    }
  }
  if (values.base && !values["base-workspace"]) {
    throw new UsageError(
      "--base through a gateway needs --base-workspace ID: a workspace on the gateway holding the base checkout (run embedded to export the base locally)",
    );
  }
  if (values["base-workspace"] && !values.base) {
    throw new UsageError("--base-workspace needs --base REF (the commit that workspace holds)");
  }
  const tokenEnv = values["token-env"] ?? "LSPMESH_TOKEN";
  const token = env[tokenEnv] || undefined;
  if (values["token-env"] && !token) {
    throw new UsageError(`--token-env ${tokenEnv}: the environment variable ${tokenEnv} is not set`);
  }
  return {
    gateway: {
      url: parsed,
      ...(token ? { token } : {}),
      ...(values.workspace ? { workspace: values.workspace } : {}),
      ...(values["base-workspace"] ? { baseWorkspace: values["base-workspace"] } : {}),
    },
  };
}
