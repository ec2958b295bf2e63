// The MCP conformance suite (@modelcontextprotocol/conformance, every server scenario of both
// protocol revisions) against the gateway served by `lspmesh serve` on loopback. Scenarios that
// need what a tools-only code-intelligence server does not offer (the suite's own fixture tools,
// prompts, resources, completion, logging) are listed below with the reason, by check; any other
// failing check fails this test, and so does a listed one that starts passing (stale list).
// docs/decisions.md "Conformance" records the same table.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FixtureWorkspace, fixtureWorkspace, type ServeProcess, startServe } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { node22 } from "../src/node22.js";

const SUITE = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");

interface Check {
  scenario: string;
  name: string;
  status: string;
  message: string;
}

/** Why a failing check does not apply to lspmesh, keyed by scenario (all its failures) or scenario/check. */
export const NOT_APPLICABLE: Record<string, { reason: string; pattern: RegExp }> = {};
const fixtureTool = {
  reason: "needs the suite's own fixture tool (test_*); lspmesh serves a fixed code-intelligence catalogue",
  pattern: /Tool \S+ not found|not found\. Available tools|Not testable: server does not list the diagnostic tool/,
};
for (const scenario of [
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "json-schema-2020-12",
  "input-required-result-basic-elicitation",
  "input-required-result-basic-sampling",
  "input-required-result-basic-list-roots",
  "input-required-result-request-state",
  "input-required-result-multiple-input-requests",
  "input-required-result-capability-check",
  "input-required-result-result-type",
  "server-stateless/ServerRejectsUndeclaredCapability",
  "server-stateless/MissingCapabilityHttp400",
  "server-stateless/HttpServerNoIndependentRequestsOnStream",
  "server-stateless/ServerNoLogWithoutLogLevel",
]) {
  NOT_APPLICABLE[scenario] = fixtureTool;
}
const notOffered = (what: string) => ({
  reason: `lspmesh is a tools-only server: it offers no ${what}`,
  pattern: /Method not found|-32601/,
});
for (const scenario of [
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
]) {
  NOT_APPLICABLE[scenario] = notOffered("prompts");
}
for (const scenario of [
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
]) {
  NOT_APPLICABLE[scenario] = notOffered("resources");
}
NOT_APPLICABLE["completion-complete"] = notOffered("argument completion (completion/complete)");
NOT_APPLICABLE["logging-set-level"] = notOffered(
  "MCP logging (logs are JSON lines on stderr; logging is deprecated in 2026-07-28)",
);
NOT_APPLICABLE["tools-call-with-logging"] = NOT_APPLICABLE["logging-set-level"];
NOT_APPLICABLE.caching = notOffered("prompts or resources, whose list caching hints this checks");
NOT_APPLICABLE["input-required-result-non-tool-request"] = notOffered(
  "prompts or resources to exercise input-required results on",
);
NOT_APPLICABLE["input-required-result-multi-round"] = {
  reason: "needs the suite's multi-round fixture tool; lspmesh never asks the client for input",
  pattern: /Expected InputRequiredResult|not found/,
};
NOT_APPLICABLE["input-required-result-tampered-state"] = {
  reason: "needs an input-required result first; lspmesh never asks the client for input",
  pattern: /Prerequisite failed/,
};
NOT_APPLICABLE["http-custom-header-server-validation"] = {
  reason: "no lspmesh tool declares x-mcp-header parameters",
  pattern: /Not testable: server exposes no tool with x-mcp-header annotations/,
};

function notApplicable(check: Check): { reason: string; pattern: RegExp } | undefined {
  return NOT_APPLICABLE[`${check.scenario}/${check.name}`] ?? NOT_APPLICABLE[check.scenario];
}

/** Scenarios every check of which must pass (warnings allowed), per revision. */
const MUST_PASS: Record<string, string[]> = {
  "2025-11-25": ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"],
  "2026-07-28": ["tools-list", "dns-rebinding-protection", "http-header-validation", "server-sse-multiple-streams"],
};

let fixture: FixtureWorkspace;
let serve: ServeProcess;
let node: string;

beforeAll(async () => {
  node = node22();
  fixture = fixtureWorkspace("typescript-basic");
  serve = await startServe(fixture.dir);
}, 300_000);

afterAll(async () => {
  await serve?.stop();
  fixture?.[Symbol.dispose]();
});

async function runSuite(specVersion: string): Promise<Check[]> {
  const out = mkdtempSync(join(tmpdir(), "lspmesh-conformance-"));
  try {
    await new Promise<void>((resolve, reject) => {
      // Exit code 1 means "some check failed"; the checks are judged below, one by one.
      execFile(
        node,
        [SUITE, "server", "--url", serve.url.href, "--suite", "all", "--spec-version", specVersion, "-o", out],
        { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
        (error) => (error && error.code !== 1 ? reject(error) : resolve()),
      );
    });
    const checks: Check[] = [];
    for (const dir of readdirSync(out)) {
      const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
      const parsed = JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")) as Array<Record<string, string>>;
      for (const check of parsed) {
        checks.push({
          scenario,
          name: check.name ?? check.id ?? "",
          status: check.status ?? "",
          message: check.errorMessage ?? "",
        });
      }
    }
    return checks;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe.each(["2025-11-25", "2026-07-28"])("MCP conformance, protocol %s", (specVersion) => {
  let checks: Check[];
  beforeAll(async () => {
    checks = await runSuite(specVersion);
  }, 300_000);

  test("every failing check is a listed not-applicable one, failing for the listed reason", () => {
    expect(checks.length).toBeGreaterThan(20);
    const unexpected = checks
      .filter((check) => check.status === "FAILURE")
      .filter((check) => !notApplicable(check)?.pattern.test(check.message))
      .map((check) => `${check.scenario}/${check.name}: ${check.message}`);
    expect(unexpected).toEqual([]);
  });

  test("the scenarios that apply to a tools-only server pass", () => {
    for (const scenario of MUST_PASS[specVersion]!) {
      const own = checks.filter((check) => check.scenario === scenario);
      expect(own.length, `${scenario} ran`).toBeGreaterThan(0);
      expect(
        own.filter((check) => check.status === "FAILURE").map((check) => check.name),
        scenario,
      ).toEqual([]);
    }
  });

  test("no listed not-applicable scenario has started to pass (the list stays true)", () => {
    const listedScenarios = new Set(Object.keys(NOT_APPLICABLE).map((key) => key.split("/")[0]!));
    const stale = [...listedScenarios].filter((scenario) => {
      const own = checks.filter((check) => check.scenario === scenario);
      return own.length > 0 && !own.some((check) => check.status === "FAILURE");
    });
    expect(stale).toEqual([]);
  });
});
