// Input too big or not text, from callers' workspaces and from a language server, against a real
// typescript-language-server: refused or handled with a clear error, and the runner keeps serving.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrpcStatus, type ServiceError } from "@lspmesh/grpc";
import { type FixtureWorkspace, fixtureWorkspace } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

/** Largest LSP message accepted from the server in this test, bytes (the default is 64 MiB). */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** "😀漢a" repeated: 102 000 code points, 136 000 UTF-16 code units, 272 000 UTF-8 bytes. */
const FILLER = "😀漢a".repeat(34_000);
const LONG_LINE_PREFIX = `export const padding = "${FILLER}"; export const `;

let fixture: FixtureWorkspace;
let env: FixtureRunner;
let runner: FixtureRunner["runner"];
let client: FixtureRunner["client"];

const at = (file: string, line: number, column: number) => ({
  file,
  target: { case: "position" as const, value: { line, column } },
});
const fails = <T>(call: Promise<T>) =>
  call.then(
    () => {
      throw new Error("the call was expected to fail");
    },
    (error: ServiceError) => error,
  );
const codeOf = (error: ServiceError) => error.metadata.get("lspmesh-error-code")[0];

async function stillServing(): Promise<void> {
  const answer = await client.hover({
    workspace: ws,
    at: { file: "src/main.ts", target: { case: "symbol", value: { name: "greeter", lineHint: 3, occurrence: 0 } } },
  });
  expect(answer.contents).toContain("PoliteGreeter");
}

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-basic");
  // Outside the project's "include": the server never loads these on its own.
  mkdirSync(join(fixture.dir, "big"));
  writeFileSync(join(fixture.dir, "big/huge.ts"), Buffer.alloc(20 * 1024 * 1024, "let x = 1;\n"));
  writeFileSync(
    join(fixture.dir, "big/binary.ts"),
    Buffer.concat([Buffer.from("export const a = 1;\n"), Buffer.from([0, 1, 2, 0, 255, 254])]),
  );
  writeFileSync(
    join(fixture.dir, "src/longLine.ts"),
    `${LONG_LINE_PREFIX}needle = 42;\nexport const found = needle + 1;\n`,
  );
  // 3 000 functions: their document symbols make a message of several hundred KiB.
  writeFileSync(
    join(fixture.dir, "src/many.ts"),
    Array.from({ length: 3_000 }, (_, i) => `export function generated${i}(): number { return ${i}; }\n`).join(""),
  );
  // Made here, before the runner starts, so that it starts on all of it.
  env = await startFixtureRunner({ dir: fixture.dir, sessionPolicy: { maxMessageBytes: MAX_MESSAGE_BYTES } });
  ({ runner, client } = env);
  await stillServing();
});

afterAll(async () => {
  await env?.close();
  fixture?.[Symbol.dispose]();
});

describe("files from the workspace", () => {
  test("a 20 MB file is refused (RESOURCE_EXHAUSTED, FILE_TOO_LARGE) without being read", async () => {
    const error = await fails(client.hover({ workspace: ws, at: at("big/huge.ts", 1, 5) }));
    expect(error.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(codeOf(error)).toBe("FILE_TOO_LARGE");
    expect(error.details).toBe("big/huge.ts is 20.0 MiB; files over 4.0 MiB are not sent to language servers");
    await stillServing();
  });

  test("a binary file is refused (INVALID_ARGUMENT)", async () => {
    const error = await fails(client.documentSymbols({ workspace: ws, file: "big/binary.ts" }));
    expect(error.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(codeOf(error)).toBe("INVALID_ARGUMENT");
    expect(error.details).toBe("big/binary.ts is a binary file; name a source file");
    await stillServing();
  });

  test("a line of 100k+ characters (emoji, CJK) keeps positions exact in both directions", async () => {
    const needleColumn = [...LONG_LINE_PREFIX].length + 1;
    expect(needleColumn).toBe(102_041);
    const definition = await client.findDefinition({
      workspace: ws,
      at: {
        file: "src/longLine.ts",
        target: { case: "symbol", value: { name: "needle", lineHint: 2, occurrence: 0 } },
      },
    });
    expect(definition.locations.map((l) => [l.file, l.range?.start, l.range?.end])).toEqual([
      [
        "src/longLine.ts",
        expect.objectContaining({ line: 1, column: needleColumn }),
        expect.objectContaining({ line: 1, column: needleColumn + "needle".length }),
      ],
    ]);
    // A position given far into the line reaches the server at the right UTF-16 offset.
    const hover = await client.hover({ workspace: ws, at: at("src/longLine.ts", 1, needleColumn + 2) });
    expect(hover.contents).toContain("const needle: 42");
    expect(hover.range?.start).toMatchObject({ line: 1, column: needleColumn });
    const symbols = await client.documentSymbols({ workspace: ws, file: "src/longLine.ts" });
    const padding = symbols.symbols.find((s) => s.name === "padding");
    // The string literal ends at the closing quote: prefix "export const padding = " + quotes + filler.
    expect(padding?.range?.end).toMatchObject({ line: 1, column: 24 + 102_000 + 2 });
  });
});

describe("a message from the language server over the limit", () => {
  test("stops that server with SERVER_FAILED naming the sizes; the next request gets a new one", async () => {
    const [before] = await runner.sessions.pids();
    const error = await fails(client.documentSymbols({ workspace: ws, file: "src/many.ts" }));
    expect(error.code).toBe(GrpcStatus.INTERNAL);
    expect(codeOf(error)).toBe("SERVER_FAILED");
    expect(error.details).toMatch(
      /^the typescript language server sent a message of 0\.\d{3} MiB, over the 0\.250 MiB limit for one message, and was stopped \(narrow the request, or raise maxMessageBytes\); the next request starts a new one$/,
    );
    await stillServing();
    expect(await runner.sessions.pids()).not.toContain(before);
  });
});
