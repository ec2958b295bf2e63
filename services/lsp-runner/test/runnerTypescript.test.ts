// The runner's gRPC service against a real typescript-language-server on a fixture workspace.
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrpcStatus, type ServiceError } from "@lspmesh/grpc";
import { ServerState } from "@lspmesh/proto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let env: FixtureRunner;
let runner: FixtureRunner["runner"];
let client: FixtureRunner["client"];

beforeAll(async () => {
  env = await startFixtureRunner({ fixture: "typescript-basic" });
  ({ runner, client } = env);
});

afterAll(() => env?.close());

describe("answers equal the server's, positions exact", () => {
  test("definition by symbol on a line with CJK and emoji before it", async () => {
    // Line 4 has CJK and two astral emoji before makeGreeting: code-point column 37, UTF-16 index 38.
    const answer = await client.findDefinition({ workspace: ws, at: symbol("src/main.ts", "makeGreeting", 4) });
    expect(answer.status?.resolved).toMatchObject({ line: 4, column: 37 });
    expect(answer.locations.map((l) => [l.file, l.range?.start?.line, l.range?.start?.column])).toEqual([
      ["src/greeter.ts", 14, 17],
    ]);
    expect(answer.locations[0]?.snippet).toBe("export function makeGreeting(name: string): string {");
    expect(answer.status?.state).toBe(ServerState.READY);
  });

  test("definition by line and column equals the symbol answer", async () => {
    const answer = await client.findDefinition({ workspace: ws, at: at("src/main.ts", 4, 76) });
    expect(answer.locations.map((l) => [l.file, l.range?.start?.line, l.range?.start?.column])).toEqual([
      ["src/greeter.ts", 14, 17],
    ]);
  });

  test("references across files, with and without the declaration, and a limit", async () => {
    const all = await client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.ts", "makeGreeting", 14),
      includeDeclaration: true,
    });
    const places = all.locations.map((l) => `${l.file}:${l.range?.start?.line}:${l.range?.start?.column}`).sort();
    expect(places).toEqual(
      [
        "src/broken.ts:1:10",
        "src/broken.ts:3:30",
        "src/greeter.ts:14:17",
        "src/main.ts:1:10",
        "src/main.ts:4:37",
        "src/main.ts:4:76",
        "src/main.ts:6:30",
      ].sort(),
    );
    const limited = await client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.ts", "makeGreeting", 14),
      includeDeclaration: false,
      limit: 2,
    });
    expect(limited.locations).toHaveLength(2);
    expect(limited.total).toBe(6);
  });

  test("shown references have the file's line as snippet; total stays the server's count on every page", async () => {
    const ask = (limit: number, offset: number) =>
      client.findReferences({
        workspace: ws,
        at: symbol("src/greeter.ts", "makeGreeting", 14),
        includeDeclaration: true,
        limit,
        offset,
      });
    const all = await ask(0, 0);
    // The seven places the server names (the test above), every one shown without a limit.
    expect(all.total).toBe(7);
    expect(all.locations).toHaveLength(7);
    const lineOf = (l: (typeof all.locations)[number]) =>
      env.read(l.file).split("\n")[l.range!.start!.line - 1]!.trim();
    for (const location of all.locations) expect(location.snippet).toBe(lineOf(location));
    const pages: typeof all.locations = [];
    for (let offset = 0; offset < all.total; offset += 3) {
      const page = await ask(3, offset);
      expect(page.total).toBe(7);
      expect(page.locations).toHaveLength(Math.min(3, 7 - offset));
      for (const location of page.locations) expect(location.snippet).toBe(lineOf(location));
      pages.push(...page.locations);
    }
    expect(pages).toEqual(all.locations);
    const past = await ask(3, 7);
    expect(past.locations).toEqual([]);
    expect(past.total).toBe(7);
  });

  test("references in a file behind a symlink out of the workspace are withheld, on every page", async () => {
    // src/leak.ts is a symlink to the fixture's outside/secret.ts.
    writeFileSync(
      join(env.dir, "src/useLeak.ts"),
      'import { secret } from "./leak";\nexport const doubled = secret * 2;\n',
    );
    const ask = (limit: number) =>
      client.findReferences({
        workspace: ws,
        at: symbol("src/useLeak.ts", "secret", 2),
        includeDeclaration: true,
        limit,
      });
    const answer = await ask(0);
    expect(places(answer.locations)).toEqual(["src/useLeak.ts:1:10", "src/useLeak.ts:2:24"]);
    expect(answer.total).toBe(2);
    expect(answer.status?.note).toMatch(/withheld/);
    expect(JSON.stringify(answer)).not.toContain(env.outside!);
    const first = await ask(1);
    expect(places(first.locations)).toEqual(["src/useLeak.ts:1:10"]);
    expect(first.total).toBe(2);
  });

  test("a file of the workspace swapped for a symlink out is withheld at once", async () => {
    const text = "export const swapped = 1;\n";
    writeFileSync(join(env.dir, "src/swap.ts"), text);
    writeFileSync(
      join(env.dir, "src/useSwap.ts"),
      'import { swapped } from "./swap";\nexport const twice = swapped + swapped;\n',
    );
    const ask = () =>
      client.findReferences({ workspace: ws, at: symbol("src/useSwap.ts", "swapped", 2), includeDeclaration: true });
    // Past the racy window: the judgement that src/swap.ts is the workspace's is remembered.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = await ask();
    expect(places(before.locations)).toContain("src/swap.ts:1:14");
    expect((await ask()).locations).toEqual(before.locations);
    writeFileSync(join(env.outside!, "swap.ts"), text);
    rmSync(join(env.dir, "src/swap.ts"));
    symlinkSync(join(env.outside!, "swap.ts"), join(env.dir, "src/swap.ts"));
    const after = await ask();
    expect(after.locations.map((l) => l.file)).not.toContain("src/swap.ts");
    expect(after.locations.length).toBeGreaterThan(0);
    expect(after.total).toBe(after.locations.length);
    expect(JSON.stringify(after)).not.toContain(env.outside!);
  });

  test("hover shows the type", async () => {
    const answer = await client.hover({ workspace: ws, at: symbol("src/main.ts", "wave", 4) });
    expect(answer.contents).toContain("const wave: string");
  });

  test("document symbols are nested with ranges", async () => {
    const answer = await client.documentSymbols({ workspace: ws, file: "src/greeter.ts" });
    const polite = answer.symbols.find((s) => s.name === "PoliteGreeter");
    expect(polite?.range?.start).toMatchObject({ line: 7, column: 1 });
    expect(polite?.children.map((c) => c.name)).toEqual(["greet"]);
    // The server is named with its version and the TypeScript it runs.
    expect(answer.status?.server).toMatch(/^typescript-language-server \d+\.\d+\.\d+ \(TypeScript \d+\.\d+\.\d+\)$/);
    // In the order they appear in the file (tsserver lists them by name).
    expect(answer.symbols.map((s) => `${s.name}:${s.range?.start?.line}`)).toEqual([
      "Greeter:2",
      "PoliteGreeter:7",
      "makeGreeting:14",
    ]);
  });

  test("workspace symbols find declarations in files never opened", async () => {
    const answer = await client.workspaceSymbols({ workspace: ws, query: "PoliteGreeter" });
    expect(answer.symbols.map((s) => [s.name, s.location?.file, s.location?.range?.start?.line])).toContainEqual([
      "PoliteGreeter",
      "src/greeter.ts",
      7,
    ]);
  });
});

describe("diagnostics", () => {
  test("a type error is reported at its line and column, then fixed and reintroduced on disk", async () => {
    const first = await client.diagnostics({ workspace: ws, files: ["src/broken.ts"], waitMs: 10_000 });
    const file = first.files[0]!;
    expect(file.fresh).toBe(true);
    expect(file.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column])).toEqual([
      ["2322", 3, 14],
    ]);

    writeFileSync(
      join(env.dir, "src/broken.ts"),
      'import { makeGreeting } from "./greeter";\n\nexport const count: number = makeGreeting("typed").length;\n',
    );
    const fixed = await client.diagnostics({ workspace: ws, files: ["src/broken.ts"], waitMs: 10_000 });
    expect(fixed.files[0]).toMatchObject({ fresh: true, version: file.version + 1, diagnostics: [] });

    writeFileSync(join(env.dir, "src/broken.ts"), 'export const flag: boolean = "no";\n');
    const again = await client.diagnostics({ workspace: ws, files: ["src/broken.ts"], waitMs: 10_000 });
    expect(again.files[0]?.version).toBe(file.version + 2);
    expect(again.files[0]?.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column])).toEqual([
      ["2322", 1, 14],
    ]);
  });
});

describe("bad input gets a clear error and a stable code", () => {
  const cases: Array<[string, string, GrpcStatus, string]> = [
    ["a path with ..", "../outside/secret.ts", GrpcStatus.INVALID_ARGUMENT, "OUTSIDE_WORKSPACE"],
    ["an absolute path", "/etc/passwd", GrpcStatus.INVALID_ARGUMENT, "OUTSIDE_WORKSPACE"],
    ["a symlink to outside", "src/leak.ts", GrpcStatus.INVALID_ARGUMENT, "OUTSIDE_WORKSPACE"],
    ["a missing file", "src/nope.ts", GrpcStatus.NOT_FOUND, "NOT_FOUND"],
    ["an unknown extension", "README.txt", GrpcStatus.FAILED_PRECONDITION, "NO_LANGUAGE_SERVER"],
  ];
  test.each(cases)("%s", async (_name, file, status, code) => {
    const error = (await client
      .hover({ workspace: ws, at: at(file, 1, 1) })
      .catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status);
    expect(error.metadata.get("lspmesh-error-code")).toEqual([code]);
    expect(error.details).not.toContain(env.outside!);
  });

  test("an unknown symbol and an out-of-range column name the fix", async () => {
    const missing = (await client
      .hover({ workspace: ws, at: symbol("src/main.ts", "nothing", 2) })
      .catch((e) => e)) as ServiceError;
    expect(missing.metadata.get("lspmesh-error-code")).toEqual(["SYMBOL_NOT_FOUND"]);
    const column = (await client
      .hover({ workspace: ws, at: at("src/main.ts", 1, 500) })
      .catch((e) => e)) as ServiceError;
    expect(column.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(column.details).toMatch(/column 500 is outside line 1/);
    // Lines counted as read_file counts them: a final newline starts no line.
    const lines = env.read("src/main.ts").replace(/\n$/, "").split("\n").length;
    const line = (await client.hover({ workspace: ws, at: at("src/main.ts", 999, 1) }).catch((e) => e)) as ServiceError;
    expect(line.details).toContain(`line 999 is outside src/main.ts, which has ${lines} lines`);
  });

  test("another workspace is NOT_FOUND and the runner keeps serving", async () => {
    const other = (await client
      .hover({ workspace: { tenant: "other", workspace: "default" }, at: at("src/main.ts", 1, 1) })
      .catch((e) => e)) as ServiceError;
    expect(other.code).toBe(GrpcStatus.NOT_FOUND);
    const answer = await client.hover({ workspace: ws, at: symbol("src/main.ts", "greeter", 3) });
    expect(answer.contents).toContain("PoliteGreeter");
  });
});

test("closing the runner stops every language server process", async () => {
  const pids = await runner.sessions.pids();
  expect(pids.length).toBeGreaterThan(0);
  await runner.close();
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
});
