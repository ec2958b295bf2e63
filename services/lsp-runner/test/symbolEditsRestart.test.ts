// RestartServer and SymbolEdit through the runner's gRPC service against a real
// typescript-language-server (and pyright for one symbol edit): a requested restart answers ready
// with a new server process and is counted, never as a failure; symbol edits find their symbol by
// path in the server's document symbols and write exactly the expected text, guarded by the hash
// of the content they were computed on.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrpcStatus } from "@lspmesh/grpc";
import { ServerState, SymbolEditRequest_Mode } from "@lspmesh/proto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageRegistry } from "./runnerInternals.js";
import { failure, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const GREETER = `/** Something that can greet. */
export interface Greeter {
  greet(name: string): string;
}

export class PoliteGreeter implements Greeter {
  greet(name: string): string {
    return \`Good day, \${name}\`;
  }
}

export function makeGreeting(name: string): string {
  return new PoliteGreeter().greet(name);
}
`;

const SHAPES_PY = `class Square:
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side
`;

let env: FixtureRunner;
let client: FixtureRunner["client"];

beforeAll(async () => {
  env = await startFixtureRunner({
    files: {
      "tsconfig.json":
        '{ "compilerOptions": { "strict": true, "noEmit": true, "lib": ["ES2022"], "types": [] }, "include": ["src"] }',
      "src/greeter.ts": GREETER,
      "src/shapes.py": SHAPES_PY,
      "pyrightconfig.json": '{ "include": ["src"] }',
    },
  });
  client = env.client;
});

afterAll(async () => {
  await env?.close();
});

const edit = (symbolPath: string, mode: SymbolEditRequest_Mode, text: string, apply = true, file = "src/greeter.ts") =>
  client.symbolEdit({ workspace: ws, file, symbolPath, mode, text, apply });

describe("restart_language_server", () => {
  test("a new server process, ready, counted as a restart and not as a failure; queries work after it", async () => {
    const hover = () => client.hover({ workspace: ws, at: symbol("src/greeter.ts", "PoliteGreeter", 6) });
    expect((await hover()).contents).toContain("class PoliteGreeter");
    const [before] = await env.runner.sessions.pids();
    const answer = await client.restartServer({ workspace: ws, language: "typescript" });
    expect(answer).toMatchObject({ wasRunning: true, restarts: 1 });
    expect(answer.status).toMatchObject({ state: ServerState.READY, language: "typescript", partial: false });
    const after = await env.runner.sessions.pids();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    const status = await client.workspaceStatus({ workspace: ws });
    expect(status.languages.map((l) => [l.language, l.state, l.restarts, l.lastError])).toEqual([
      ["typescript", ServerState.READY, 1, ""],
    ]);
    expect((await hover()).contents).toContain("class PoliteGreeter");
    // A wait too short for the new server: answered once it started; partial and saying so unless
    // it was ready by then (a small project may be, on a busy machine the start itself takes long).
    const hurried = await client.restartServer({ workspace: ws, language: "typescript", waitMs: 1 });
    expect(hurried).toMatchObject({ wasRunning: true, restarts: 2 });
    const { state, partial, note } = hurried.status!;
    if (state === ServerState.READY) expect({ partial, note }).toEqual({ partial: false, note: "" });
    else
      expect({ state, partial, note }).toMatchObject({
        state: ServerState.INDEXING,
        partial: true,
        note: expect.stringMatching(/^not ready within the wait/),
      });
  });

  test("a language the runner does not serve, or a workspace that does not exist, is refused", async () => {
    const unknown = await failure(client.restartServer({ workspace: ws, language: "cobol" }));
    expect(unknown.lspmeshCode).toBe("NO_LANGUAGE_SERVER");
    expect(unknown.details).toMatch(/^unknown language 'cobol'; this runner serves: .*typescript/);
    const missing = await failure(
      client.restartServer({ workspace: { tenant: "local", workspace: "other" }, language: "typescript" }),
    );
    expect([missing.code, missing.details]).toEqual([
      GrpcStatus.NOT_FOUND,
      "unknown workspace 'other': check the workspace id",
    ]);
  });
});

describe("symbol edits", () => {
  test("ambiguous and missing symbols are refused, naming the candidates or the file's symbols", async () => {
    const ambiguous = await failure(edit("greet", SymbolEditRequest_Mode.REPLACE_BODY, "x"));
    expect([ambiguous.code, ambiguous.details]).toEqual([
      GrpcStatus.INVALID_ARGUMENT,
      "'greet' names 2 symbols in src/greeter.ts: Greeter.greet (method, line 3), PoliteGreeter.greet (method, line 7); name it with its container, e.g. 'Greeter.greet'",
    ]);
    const missing = await failure(edit("PoliteGreeter.wave", SymbolEditRequest_Mode.INSERT_AFTER, "x"));
    expect([missing.code, missing.details]).toEqual([
      GrpcStatus.NOT_FOUND,
      "no symbol 'PoliteGreeter.wave' in src/greeter.ts; its top-level symbols: Greeter, PoliteGreeter, makeGreeting; document_symbols shows its outline",
    ]);
  });

  test("a preview applied after the file changed on disk is refused by its content hash", async () => {
    const preview = await edit("makeGreeting", SymbolEditRequest_Mode.INSERT_BEFORE, "// greets", false);
    expect(preview.applied).toBe(false);
    const changed = `${GREETER}// changed meanwhile\n`;
    writeFileSync(join(env.dir, "src/greeter.ts"), changed);
    const stale = await failure(client.applyWorkspaceEdit({ workspace: ws, edit: preview.edit }));
    expect(stale.lspmeshCode).toBe("STALE_EDIT");
    expect(env.read("src/greeter.ts")).toBe(changed);
    writeFileSync(join(env.dir, "src/greeter.ts"), GREETER);
  });

  test("replace Class.method, insert before and after: exactly the expected file", async () => {
    const replaced = await edit(
      "PoliteGreeter.greet",
      SymbolEditRequest_Mode.REPLACE_BODY,
      `greet(name: string): string {\n    return \`Hello, \${name}\`;\n  }`,
    );
    expect(replaced.applied).toBe(true);
    expect(replaced.status?.resolved).toEqual(expect.objectContaining({ line: 7, column: 3 }));
    await edit("makeGreeting", SymbolEditRequest_Mode.INSERT_BEFORE, "/** Builds the greeting. */");
    await edit("PoliteGreeter", SymbolEditRequest_Mode.INSERT_AFTER, "\nexport const polite = new PoliteGreeter();\n");
    // The same text again changes nothing: an empty edit, nothing applied (with a delta asked too).
    const again = await client.symbolEdit({
      workspace: ws,
      file: "src/greeter.ts",
      symbolPath: "PoliteGreeter.greet",
      mode: SymbolEditRequest_Mode.REPLACE_BODY,
      text: `greet(name: string): string {\n    return \`Hello, \${name}\`;\n  }`,
      apply: true,
      delta: { enabled: true },
    });
    expect([again.applied, again.edit?.files]).toEqual([false, []]);
    expect(env.read("src/greeter.ts")).toBe(
      GREETER.replace("Good day", "Hello")
        .replace("export function", "/** Builds the greeting. */\nexport function")
        .replace("}\n}\n", "}\n}\n\nexport const polite = new PoliteGreeter();\n"),
    );
  });

  test.skipIf(!new LanguageRegistry().get("python"))(
    "pyright: replace a method of a class (Square.area), indentation given on the first line",
    async () => {
      const answer = await edit(
        "Square.area",
        SymbolEditRequest_Mode.REPLACE_BODY,
        "    def area(self) -> float:\n        return self.side ** 2",
        true,
        "src/shapes.py",
      );
      expect(answer.applied).toBe(true);
      expect(env.read("src/shapes.py")).toBe(SHAPES_PY.replace("self.side * self.side", "self.side ** 2"));
    },
  );
});
