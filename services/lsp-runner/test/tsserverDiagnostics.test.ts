// TypeScript diagnostics asked of tsserver (the `typescript.tsserverRequest` pull) equal what
// typescript-language-server itself pushes for the same files: errors, warnings and suggestion
// hints, with the same ranges, codes, sources and messages. Two runners on one workspace, one of
// them configured to wait for pushes only.
import { type DiagnosticsAnswer, ServerState } from "@lspmesh/proto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES: Record<string, string> = {
  "tsconfig.json":
    '{ "compilerOptions": { "strict": true, "target": "ES2022", "lib": ["ES2022"], "types": [], "noEmit": true }, "include": ["src"] }\n',
  "src/sum.ts":
    "export function add(a: number, b: number) {\n  return a + b;\n}\nconst unused = 1;\nexport const label: string = add(1, 2);\n",
  "src/use.ts":
    'import { add } from "./sum";\n\n/** @deprecated use add */\nexport function plus(a: number, b: number) {\n  return add(a, b);\n}\n\nexport const sum = plus(1, 2) + add("x", 2);\nexport function later() {\n  return new Promise((resolve) => setTimeout(resolve, 1)).then(() => 1);\n}\n',
  "src/clean.ts": "export const ok = 1;\n",
  "src/syntax.ts": "export const broken = (1 + ;\n",
};

/** Pulling (the default) and push-only, on one folder (the first owns it). */
let pulling: FixtureRunner;
let pushOnly: FixtureRunner;
let clients: Array<FixtureRunner["client"]>;

beforeAll(async () => {
  pulling = await startFixtureRunner({ files: FILES, languages: new LanguageRegistry([typescriptLanguage()]) });
  pushOnly = await startFixtureRunner({
    dir: pulling.dir,
    languages: new LanguageRegistry([{ ...typescriptLanguage(), diagnosticsPull: undefined }]),
  });
  clients = [pulling.client, pushOnly.client];
});

afterAll(async () => {
  await pushOnly?.close();
  await pulling?.close();
});

const shape = (answer: DiagnosticsAnswer) =>
  answer.files.map((file) => ({
    file: file.file,
    fresh: file.fresh,
    diagnostics: file.diagnostics.map((d) => ({
      at: `${d.range?.start?.line}:${d.range?.start?.column}-${d.range?.end?.line}:${d.range?.end?.column}`,
      severity: d.severity,
      code: d.code,
      source: d.source,
      message: d.message,
    })),
  }));

test("pulled diagnostics equal the pushed ones, file by file", async () => {
  const [pulled, pushed] = await Promise.all(
    clients.map((client) => client.diagnostics({ workspace: ws, files: [], waitMs: 20_000 })),
  );
  // Every file checked; partial only because a cold server may still count as indexing.
  for (const answer of [pulled!, pushed!]) {
    expect(answer.status?.partial).toBe(answer.status?.state !== ServerState.READY);
    expect(answer.files.every((file) => file.fresh)).toBe(true);
  }
  const pulledShape = shape(pulled!);
  expect(pulledShape).toEqual(shape(pushed!));
  // The cases are all there: an error, a suggestion hint, a deprecation, a syntax error, a clean file.
  const codes = pulledShape.flatMap((file) => file.diagnostics.map((d) => `${file.file} ${d.code}/${d.severity}`));
  expect(codes).toEqual(
    expect.arrayContaining([
      "src/sum.ts 2322/1",
      "src/sum.ts 6133/4",
      "src/use.ts 2345/1",
      "src/use.ts 6387/4",
      "src/syntax.ts 1109/1",
    ]),
  );
  expect(pulledShape.find((file) => file.file === "src/clean.ts")?.diagnostics).toEqual([]);
});
