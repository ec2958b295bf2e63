// The runner's built-in Python language: real pyright (an npm dependency of the runner) on the
// python-basic fixture, answers and positions exact.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrpcStatus } from "@lspmesh/grpc";
import { ServerState } from "@lspmesh/proto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at, failure, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let env: FixtureRunner;

beforeAll(async () => {
  env = await startFixtureRunner({ fixture: "python-basic" });
});

afterAll(async () => {
  await env?.close();
});

describe("pyright answers, positions exact", () => {
  test("definition by symbol on a line with CJK and emoji before it", async () => {
    // Line 4: "こんにちは 👋🏽 " + make_greeting(…): code-point column 22, UTF-16 index 24.
    const answer = await env.client.findDefinition({ workspace: ws, at: symbol("src/main.py", "make_greeting", 4) });
    expect(answer.status?.resolved).toMatchObject({ line: 4, column: 22 });
    expect(places(answer.locations)).toEqual(["src/greeter.py:11:5"]);
    expect(answer.locations[0]?.snippet).toBe("def make_greeting(name: str) -> str:");
    expect(answer.status?.state).toBe(ServerState.READY);
    expect(answer.status?.language).toBe("python");
  });

  test("definition by line and column after the emoji equals the second occurrence", async () => {
    const byColumn = await env.client.findDefinition({ workspace: ws, at: at("src/main.py", 4, 52) });
    const byOccurrence = await env.client.findDefinition({
      workspace: ws,
      at: symbol("src/main.py", "make_greeting", 4, 2),
    });
    expect(places(byColumn.locations)).toEqual(["src/greeter.py:11:5"]);
    expect(byOccurrence.status?.resolved).toMatchObject({ line: 4, column: 52 });
  });

  test("references across files, with and without the declaration", async () => {
    const all = await env.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.py", "make_greeting", 11),
      includeDeclaration: true,
    });
    expect(places(all.locations)).toEqual(
      [
        "src/broken.py:1:21",
        "src/broken.py:3:14",
        "src/greeter.py:11:5",
        "src/main.py:1:36",
        "src/main.py:4:22",
        "src/main.py:4:52",
      ].sort(),
    );
    const withoutDeclaration = await env.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.py", "make_greeting", 11),
      includeDeclaration: false,
    });
    expect(places(withoutDeclaration.locations)).not.toContain("src/greeter.py:11:5");
    expect(withoutDeclaration.locations).toHaveLength(5);
  });

  test("hover shows the signature", async () => {
    const answer = await env.client.hover({ workspace: ws, at: symbol("src/main.py", "make_greeting", 4) });
    expect(answer.contents).toContain("def make_greeting(name: str) -> str");
  });

  test("document symbols are nested with ranges", async () => {
    const answer = await env.client.documentSymbols({ workspace: ws, file: "src/greeter.py" });
    expect(answer.symbols.map((s) => s.name)).toEqual(["PoliteGreeter", "make_greeting"]);
    const polite = answer.symbols.find((s) => s.name === "PoliteGreeter");
    expect(polite?.range?.start).toMatchObject({ line: 4, column: 1 });
    expect(polite?.children.map((c) => c.name)).toEqual(["greet"]);
  });

  test("workspace symbols find declarations in files never opened", async () => {
    const answer = await env.client.workspaceSymbols({ workspace: ws, query: "PoliteGreeter" });
    expect(answer.symbols.map((s) => [s.name, s.location?.file, s.location?.range?.start?.line])).toContainEqual([
      "PoliteGreeter",
      "src/greeter.py",
      4,
    ]);
  });
});

describe("diagnostics", () => {
  test("a complete whole-workspace check stays complete when asked again at once (wait_ms 0)", async () => {
    const first = await env.client.diagnostics({ workspace: ws, files: [], waitMs: 20_000 });
    expect(first.status?.partial).toBe(false);
    // pyright keeps pushing after it was asked: its pushes make the checked files no less fresh.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const again = await env.client.diagnostics({ workspace: ws, files: [], waitMs: 0 });
    expect(again.files.filter((file) => !file.fresh).map((file) => file.file)).toEqual([]);
    expect(again.status?.partial).toBe(false);
  });

  test("a type error is reported at its line and column, then fixed and reintroduced on disk", async () => {
    const first = await env.client.diagnostics({ workspace: ws, files: ["src/broken.py"], waitMs: 15_000 });
    const file = first.files[0]!;
    expect(file.fresh).toBe(true);
    expect(file.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column, d.severity])).toEqual([
      ["reportAssignmentType", 3, 14, 1],
    ]);
    expect(file.diagnostics[0]?.message).toMatch(/"str" is not assignable to declared type "int"/);

    writeFileSync(
      join(env.dir, "src/broken.py"),
      'from greeter import make_greeting\n\ncount: int = len(make_greeting("typed"))\n',
    );
    const fixed = await env.client.diagnostics({ workspace: ws, files: ["src/broken.py"], waitMs: 15_000 });
    expect(fixed.files[0]).toMatchObject({ fresh: true, version: file.version + 1, diagnostics: [] });

    // The error after an emoji: pyright's UTF-16 column converted to code points.
    writeFileSync(join(env.dir, "src/broken.py"), 'label = "🎉"; flag: bool = "no"\n');
    const again = await env.client.diagnostics({ workspace: ws, files: ["src/broken.py"], waitMs: 15_000 });
    expect(again.files[0]?.version).toBe(file.version + 2);
    expect(again.files[0]?.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column])).toEqual([
      ["reportAssignmentType", 1, 27],
    ]);
  });
});

test("a file with no configured language is NO_LANGUAGE_SERVER", async () => {
  const error = await failure(env.client.hover({ workspace: ws, at: at("README.txt", 1, 1) }));
  expect(error.code).toBe(GrpcStatus.FAILED_PRECONDITION);
  expect(error.metadata.get("lspmesh-error-code")).toEqual(["NO_LANGUAGE_SERVER"]);
});

test("closing the runner stops every language server process", async () => {
  const pids = await env.runner.sessions.pids();
  expect(pids.length).toBeGreaterThan(0);
  await env.runner.close();
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
});
