// `lspmesh check` end to end: the real CLI binary as a child process, a real typescript-language-server,
// on a git repository built by the test (base commit on main, head commit on feature).
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CheckReport, ReportedFinding } from "../src/check/report.js";
import { type CliResult, runCli } from "./cli.js";
import { type FixtureRepo, fixtureRepo } from "./fixtureRepo.js";

const require = createRequire(import.meta.url);
const Ajv = require("ajv") as typeof import("ajv").default;
const addFormats = require("ajv-formats") as typeof import("ajv-formats").default;

let repo: FixtureRepo;
// The checks this file runs export their bases into a temporary folder of its own, so what is
// left behind is theirs alone while other test files run checks beside them.
const ownTmp = mkdtempSync(join(tmpdir(), "lspmesh-check-test-"));
const baseExports = () => readdirSync(ownTmp).filter((name) => name.startsWith("lspmesh-base-"));
const runCheck = (args: string[], options: Parameters<typeof runCli>[1] & object): Promise<CliResult> =>
  runCli(args, { ...options, env: { TMPDIR: ownTmp, ...options.env } });
beforeAll(() => {
  repo = fixtureRepo();
});
afterAll(() => {
  repo?.[Symbol.dispose]();
  rmSync(ownTmp, { recursive: true, force: true });
});

const summary = (findings: ReportedFinding[]) =>
  findings.map(
    (f) => `${f.state} ${f.file}:${f.line}:${f.column} ${f.code}${f.baseLine ? ` (base line ${f.baseLine})` : ""}`,
  );
const allFindings = (report: CheckReport) => report.files.flatMap((file) => file.findings);

describe("introduced vs existing, against a base commit", () => {
  let report: CheckReport;
  let code: number | null;
  let reports: Record<string, string>;

  beforeAll(async () => {
    const out = (name: string) => join(repo.outside, `report.${name}`);
    reports = { sarif: out("sarif"), github: out("github"), md: out("md"), codequality: out("cq") };
    const result = await runCheck(
      [
        "check",
        "--changed-since",
        "main",
        "--base",
        "main",
        "--format",
        "json",
        "--report",
        `sarif:${reports.sarif}`,
        "--report",
        `github:${reports.github}`,
        "--report",
        `codequality:${reports.codequality}`,
        "--summary-md",
        reports.md!,
      ],
      { cwd: repo.dir },
    );
    code = result.code;
    expect(result.stderr).toBe("");
    report = JSON.parse(result.stdout) as CheckReport;
  }, 120_000);

  test("old errors are unchanged, even moved down by new lines or in a renamed file; new ones are new; fixed ones fixed", () => {
    expect(summary(allFindings(report))).toEqual([
      "new src/emoji.ts:1:41 2322",
      "unchanged src/existing.ts:4:14 2322 (base line 4)",
      "fixed src/fixed.ts:1:14 2322 (base line 1)",
      "new src/introduced.ts:2:37 2339",
      "unchanged src/renamed-new.ts:1:14 2322 (base line 1)",
      "unchanged src/shifted.ts:5:14 2322 (base line 2)",
    ]);
    expect(report.files.find((f) => f.file === "src/renamed-new.ts")?.baseFile).toBe("src/renamed-old.ts");
    expect(report.counts.new.error).toBe(2);
    expect(report.counts.fixed.error).toBe(1);
    expect(report.counts.unchanged.error).toBe(3);
    expect(report.base?.ref).toBe("main");
    expect(report.base?.commit).toBe(repo.git("rev-parse", "main").trim());
  });

  test("only changed files are checked: untouched and deleted files are not; files no server may or can check are skipped, not dropped", () => {
    expect(report.files.map((f) => f.file)).toEqual([
      "src/emoji.ts",
      "src/existing.ts",
      "src/fixed.ts",
      "src/introduced.ts",
      "src/renamed-new.ts",
      "src/shifted.ts",
    ]);
    expect(report.skipped).toEqual([
      { file: "README.md", reason: "no language server is configured for this file type" },
      { file: "src/dangling.ts", reason: "not a regular file here (a folder, a submodule or a dangling link)" },
      { file: "src/outside.ts", reason: expect.stringMatching(/'src\/outside\.ts' is outside the workspace/) },
    ]);
    // Nothing of the file the outside link points at (it has an error) appears anywhere.
    expect(JSON.stringify(report)).not.toContain("not yours");
    expect(report.incomplete).toEqual([]);
  });

  test("new errors fail the check: exit code 1", () => {
    expect(report.outcome).toBe("failed");
    expect(report.failing).toBe(2);
    expect(report.exitCode).toBe(1);
    expect(code).toBe(1);
  });

  test("SARIF validates against the official SARIF 2.1.0 schema and points at the new and old findings' places", () => {
    const sarif = JSON.parse(readFileSync(reports.sarif!, "utf8"));
    const schema = JSON.parse(readFileSync(new URL("./fixtures/sarif-schema-2.1.0.json", import.meta.url), "utf8"));
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(sarif), JSON.stringify(validate.errors, null, 2)).toBe(true);

    const run = sarif.runs[0];
    expect(run.columnKind).toBe("unicodeCodePoints");
    const places = run.results.map(
      (r: {
        ruleId: string;
        ruleIndex: number;
        level: string;
        baselineState: string;
        locations: Array<{
          physicalLocation: {
            artifactLocation: { uri: string };
            region: { startLine: number; startColumn: number; endColumn: number };
          };
        }>;
      }) => {
        const { artifactLocation, region } = r.locations[0]!.physicalLocation;
        expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
        return `${r.baselineState} ${r.level} ${r.ruleId} ${artifactLocation.uri}:${region.startLine}:${region.startColumn}-${region.endColumn}`;
      },
    );
    // Fixed findings are absent from the analysed code, so they are not results.
    expect(places).toEqual([
      // Column 41 counts code points: the two emoji before it are 4 UTF-16 units, 2 code points.
      "new error typescript/2322 src/emoji.ts:1:41-42",
      "unchanged error typescript/2322 src/existing.ts:4:14-19",
      "new error typescript/2339 src/introduced.ts:2:37-48",
      "unchanged error typescript/2322 src/renamed-new.ts:1:14-19",
      "unchanged error typescript/2322 src/shifted.ts:5:14-19",
    ]);
    // The same columns as the source: the identifier `n` on line 1 of emoji.ts.
    const emojiLine = readFileSync(join(repo.dir, "src/emoji.ts"), "utf8").split("\n")[0]!;
    expect([...emojiLine][40]).toBe("n");
    const fingerprints = run.results.map((r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints);
    expect(
      fingerprints.every((p: Record<string, string>) => /^[0-9a-f]{32}:\d+$/.test(p["lspmeshFingerprint/v1"]!)),
    ).toBe(true);
  });

  test("the shifted old error keeps its fingerprint: the same as the base's", () => {
    const shifted = allFindings(report).find((f) => f.file === "src/shifted.ts")!;
    const base = repo.git("show", "main:src/shifted.ts");
    expect(base.split("\n")[shifted.baseLine! - 1]).toBe(
      readFileSync(join(repo.dir, "src/shifted.ts"), "utf8").split("\n")[shifted.line - 1],
    );
    expect(shifted.fingerprint).toMatch(/:1$/);
  });

  test("GitHub annotations: one workflow command per new finding, nothing for old ones", () => {
    const lines = readFileSync(reports.github!, "utf8").trim().split("\n");
    expect(lines.filter((line) => line.startsWith("::"))).toEqual([
      "::error file=src/emoji.ts,line=1,endLine=1,col=41,endColumn=42,title=TS2322 (new)::Type 'string' is not assignable to type 'number'.",
      "::error file=src/introduced.ts,line=2,endLine=2,col=37,endColumn=48,title=TS2339 (new)::Property 'toUpperCase' does not exist on type 'number'.",
    ]);
  });

  test("the Markdown summary and the GitLab Code Quality report say the same", () => {
    const md = readFileSync(reports.md!, "utf8");
    expect(md).toContain("## ❌ lspmesh check failed: 2 new errors");
    expect(md).toContain("| new | 2 | 0 | 0 |");
    expect(md).toContain(
      "| `src/introduced.ts` | 2:37 | error | TS2339 | Property 'toUpperCase' does not exist on type 'number'. |",
    );
    expect(md).toContain("<summary>Fixed (1)</summary>");
    const quality = JSON.parse(readFileSync(reports.codequality!, "utf8")) as Array<{ location: { path: string } }>;
    expect(quality.map((issue) => issue.location.path)).toEqual([
      "src/emoji.ts",
      "src/existing.ts",
      "src/introduced.ts",
      "src/renamed-new.ts",
      "src/shifted.ts",
    ]);
  });
});

// Every case is its own `lspmesh check` process on the same checkout, reading it only: they run
// side by side (up to vitest's maxConcurrency, 5), using the second core.
describe.concurrent("exit codes of the real binary", () => {
  test("0: only old errors (files named on stdin), even though they are errors", async () => {
    const result = await runCheck(["check", "--files", "-", "--base", "main"], {
      cwd: repo.dir,
      input: "src/shifted.ts\nsrc/existing.ts\n\nsrc/fixed.ts\n",
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("✓ lspmesh check passed: no problems");
    expect(result.stdout).toContain("1 fixed error · 2 errors already there (not listed)");
  }, 120_000);

  test("1 without a base: every error counts", async () => {
    const result = await runCheck(["check", "--files", "src/shifted.ts", "--format", "json"], { cwd: repo.dir });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(summary(allFindings(report))).toEqual(["new src/shifted.ts:5:14 2322"]);
  }, 120_000);

  test("1 when diagnostics are incomplete at the timeout; 0 with --allow-incomplete", async () => {
    const strict = await runCheck(["check", "--files", "src/fixed.ts", "--timeout", "1ms", "--format", "json"], {
      cwd: repo.dir,
    });
    expect(strict.code).toBe(1);
    const report = JSON.parse(strict.stdout) as CheckReport;
    expect(report.outcome).toBe("incomplete");
    expect(report.incomplete.map((i) => [i.file, i.side])).toEqual([["src/fixed.ts", "head"]]);
    const lenient = await runCheck(["check", "--files", "src/fixed.ts", "--timeout", "1ms", "--allow-incomplete"], {
      cwd: repo.dir,
    });
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain("incomplete src/fixed.ts: not checked within the timeout");
  }, 60_000);

  test.each([
    [["check", "--fail-on", "fatal"], /--fail-on must be one of error, warning, info/],
    [["check", "--format", "xml"], /unknown format 'xml'/],
    [["check", "--files"], /--files needs at least one path/],
    [["check", "src/a.ts"], /name files with --files/],
    [["check", "--base", "no-such-branch"], /unknown git ref 'no-such-branch'/],
    [["check", "--gateway", "http://127.0.0.1:9/mcp", "--base", "main"], /needs --base-workspace/],
    [["check", "--token-env", "LSPMESH_TEST_UNSET"], /only applies with --gateway/],
    [["check", "--files", "../outside.ts"], /not a file inside/],
  ])("2 for usage errors: %j", async (args, message) => {
    const result = await runCheck(args, { cwd: repo.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });

  test("2 for infrastructure errors: an unreachable gateway, a file the workspace lacks, a folder outside git", async () => {
    const gateway = await runCheck(["check", "--gateway", "http://127.0.0.1:9/mcp"], { cwd: repo.dir });
    expect(gateway.code).toBe(2);
    expect(gateway.stderr).toMatch(/cannot reach the gateway at http:\/\/127\.0\.0\.1:9\/mcp/);
    const missing = await runCheck(["check", "--files", "src/nope.ts"], { cwd: repo.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file in the workspace: 'src\/nope\.ts'/);
    const notGit = await runCheck(["check", "--changed-since", "main", "--dir", repo.outside], { cwd: repo.dir });
    expect(notGit.code).toBe(2);
    expect(notGit.stderr).toMatch(/need a git checkout/);
  }, 60_000);
});

test("nothing outlives a check: no process runs in the checkout or a base export, no export is left behind", () => {
  const running = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        return [readlinkSync(`/proc/${pid}/cwd`)];
      } catch {
        return [];
      }
    })
    .filter((cwd) => cwd.startsWith(repo.dir) || cwd.startsWith(ownTmp));
  expect(running).toEqual([]);
  expect(baseExports()).toEqual([]);
});
