import { describe, expect, test } from "vitest";
import { UsageError } from "../usage.js";
import { DEFAULT_TIMEOUT_MS, parseCheckArgs, parseDuration } from "./options.js";

const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => parseCheckArgs(args, env);

describe("check options", () => {
  test("defaults: the whole workspace, text, fail on errors, 300 s, embedded", () => {
    const options = parse([]);
    expect(options).toMatchObject({ failOn: "error", format: "text", reports: [], timeoutMs: DEFAULT_TIMEOUT_MS });
    expect(options.files).toBeUndefined();
    expect(options.gateway).toBeUndefined();
  });

  test("--files takes every path up to the next option; - alone means stdin", () => {
    expect(parse(["--files", "a.ts", "b c.ts", "--fail-on", "warning"])).toMatchObject({
      files: ["a.ts", "b c.ts"],
      failOn: "warning",
    });
    expect(parse(["--format", "json", "--files", "-"]).files).toEqual(["-"]);
    expect(() => parse(["--files", "-", "a.ts"])).toThrow(/reads the list from stdin/);
    expect(() => parse(["--files", "a.ts", "--changed-since", "main"])).toThrow(/not both/);
  });

  test("reports: FORMAT:FILE, repeatable, and --summary-md as one of them", () => {
    expect(
      parse(["--report", "sarif:out/a.sarif", "--report", "json:C:x.json", "--summary-md", "s.md"]).reports,
    ).toEqual([
      { format: "sarif", file: "out/a.sarif" },
      { format: "json", file: "C:x.json" },
      { format: "summary-md", file: "s.md" },
    ]);
    expect(() => parse(["--report", "sarif"])).toThrow(/FORMAT:FILE/);
    expect(() => parse(["--report", "pdf:x"])).toThrow(/unknown format 'pdf'/);
  });

  test("gateway: URL checked, token from LSPMESH_TOKEN or --token-env, ids checked, base needs a base workspace", () => {
    expect(
      parse(["--gateway", "https://g.example/mcp", "--workspace", "web"], { LSPMESH_TOKEN: "t1" }).gateway,
    ).toEqual({
      url: new URL("https://g.example/mcp"),
      token: "t1",
      workspace: "web",
    });
    expect(parse(["--gateway", "http://g/mcp", "--token-env", "CI_TOKEN"], { CI_TOKEN: "t2" }).gateway?.token).toBe(
      "t2",
    );
    expect(parse(["--gateway", "http://g/mcp"]).gateway?.token).toBeUndefined();
    expect(() => parse(["--gateway", "http://g/mcp", "--token-env", "CI_TOKEN"])).toThrow(/CI_TOKEN is not set/);
    expect(() => parse(["--gateway", "ftp://g"])).toThrow(/http\(s\)/);
    expect(() => parse(["--gateway", "not a url"])).toThrow(/not a URL/);
    expect(() => parse(["--gateway", "http://g/mcp", "--workspace", "Bad/Id"])).toThrow(/not a workspace id/);
    expect(() => parse(["--gateway", "http://g/mcp", "--base", "main"])).toThrow(/--base-workspace/);
    expect(
      parse(["--gateway", "http://g/mcp", "--base", "main", "--base-workspace", "web-base"]).gateway?.baseWorkspace,
    ).toBe("web-base");
    expect(() => parse(["--workspace", "web"])).toThrow(/only applies with --gateway/);
  });

  test("durations: bare seconds, s, m, ms; nonsense refused", () => {
    expect(parseDuration("90")).toBe(90_000);
    expect(parseDuration("1.5m")).toBe(90_000);
    expect(parseDuration("250ms")).toBe(250);
    for (const bad of ["0", "-1", "5h", "soon", ""]) expect(() => parseDuration(bad)).toThrow(UsageError);
  });
});
