import { describe, expect, test } from "vitest";
import { anchorFindings } from "../anchors.js";
import type { Finding } from "../findings.js";
import { buildReport, type CheckReport } from "../report.js";
import { escapeData, escapeProperty } from "./github.js";
import { render } from "./index.js";

const tricky: Finding = {
  file: "src/a dir/x,y.ts",
  line: 2,
  column: 3,
  endLine: 2,
  endColumn: 9,
  severity: "warning",
  code: "6385",
  source: "typescript",
  message: "100% deprecated: use <New> | other\n  Details here.",
};

function report(base: boolean): CheckReport {
  return buildReport({
    toolVersion: "1.2.3",
    mode: "embedded",
    targets: "files",
    ...(base ? { base: { ref: "main", commit: "0123456789abcdef" } } : {}),
    failOn: "error",
    includeHints: false,
    allowIncomplete: false,
    servers: ["typescript"],
    files: [
      { file: tricky.file, head: anchorFindings([tricky], ["", "old();"]), ...(base ? { base: [] } : {}) },
      { file: "src/clean.ts", head: [], ...(base ? { base: [] } : {}) },
    ],
    skipped: [{ file: "README.md", reason: "no language server is configured for this file type" }],
    incomplete: [],
  });
}

const plain = { color: false, pathPrefix: "" };

describe("formats", () => {
  test("GitHub commands escape %, CR, LF in messages and also : and , in properties", () => {
    expect(escapeData("a%b\r\nc")).toBe("a%25b%0D%0Ac");
    expect(escapeProperty("src/a,b:c.ts")).toBe("src/a%2Cb%3Ac.ts");
    const output = render("github", report(true), { color: false, pathPrefix: "web/" });
    expect(output.split("\n")[0]).toBe(
      "::warning file=web/src/a dir/x%2Cy.ts,line=2,endLine=2,col=3,endColumn=9,title=TS6385 (new)::100%25 deprecated: use <New> | other%0A  Details here.",
    );
  });

  test("text groups by file, indents continuation lines, and colours only when asked", () => {
    const text = render("text", report(false), plain);
    expect(text).toBe(
      [
        "src/a dir/x,y.ts",
        "  2:3  warning  100% deprecated: use <New> | other",
        "                  Details here.  TS6385",
        "",
        "skipped 1 file (no language server is configured for this file type): README.md",
        "",
        "✓ lspmesh check passed: 1 warning, below the threshold (error)",
        "  2 files checked, 1 skipped",
        "",
      ].join("\n"),
    );
    expect(text).not.toContain("\x1b[");
    expect(render("text", report(false), { color: true, pathPrefix: "" })).toContain("\x1b[33mwarning");
  });

  test("summary Markdown keeps table cells intact (pipes, line breaks, HTML)", () => {
    const md = render("summary-md", report(true), plain);
    expect(md).toContain(
      "| `src/a dir/x,y.ts` | 2:3 | warning | TS6385 | 100% deprecated: use &lt;New&gt; \\| other<br>Details here. |",
    );
    expect(md.startsWith("## ✅ lspmesh check passed: 1 new warning, below the threshold (error)")).toBe(true);
  });

  test("SARIF: repository-relative, percent-encoded URIs; baselineState only with a base", () => {
    const withBase = JSON.parse(render("sarif", report(true), { color: false, pathPrefix: "web/" }));
    const result = withBase.runs[0].results[0];
    expect(result.locations[0].physicalLocation.artifactLocation).toEqual({
      uri: "web/src/a%20dir/x%2Cy.ts",
      uriBaseId: "%SRCROOT%",
    });
    expect(result.level).toBe("warning");
    expect(result.baselineState).toBe("new");
    expect(withBase.runs[0].tool.driver).toMatchObject({ name: "lspmesh", version: "1.2.3" });
    const withoutBase = JSON.parse(render("sarif", report(false), plain));
    expect(withoutBase.runs[0].results[0].baselineState).toBeUndefined();
  });

  test("GitLab Code Quality: severity mapped, repository-relative path", () => {
    const issues = JSON.parse(render("codequality", report(false), { color: false, pathPrefix: "web/" }));
    expect(issues).toEqual([
      expect.objectContaining({
        check_name: "typescript/6385",
        severity: "minor",
        location: { path: "web/src/a dir/x,y.ts", lines: { begin: 2, end: 2 } },
      }),
    ]);
  });
});
