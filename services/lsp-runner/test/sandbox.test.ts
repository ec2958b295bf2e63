// Below the server: a TypeScript file of tenant acme that imports another tenant's file by its
// absolute path. Without the sandbox tsserver reads that file and hover shows its canary (the
// control proving the test can fail); in the sandbox the file does not exist for the server, and
// nothing of it reaches an answer.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { detectSandbox } from "../src/lsp/process/sandbox.js";
import { type RunningRunner, startRunner } from "../src/startRunner.js";

const CANARY = "GLOBEX-SECRET-CANARY-7f3a";
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-sandbox-"));
  const globex = join(root, "globex", "shop", "src");
  mkdirSync(globex, { recursive: true });
  writeFileSync(join(globex, "secret.ts"), `/** ${CANARY} */\nexport const secret = "${CANARY}" as const;\n`);
  const acme = join(root, "acme", "web", "src");
  mkdirSync(acme, { recursive: true });
  writeFileSync(join(root, "acme", "web", "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
  writeFileSync(
    join(acme, "leak.ts"),
    `import { secret } from "${join(globex, "secret")}";\nexport const stolen = secret;\n`,
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bigints = (_key: string, value: unknown) => (typeof value === "bigint" ? String(value) : value);

async function hoverStolen(sandbox: "bwrap" | "none"): Promise<string> {
  const runner: RunningRunner = await startRunner({ listen: "127.0.0.1:0", workspaces: { root }, sandbox });
  const client: ServiceClient<typeof Runner.method> = createClient(Runner, runner.address);
  try {
    const workspace = { tenant: "acme", workspace: "web" };
    const at = {
      file: "src/leak.ts",
      target: { case: "symbol" as const, value: { name: "stolen", lineHint: 2, occurrence: 0 } },
    };
    const answers: string[] = [];
    const hover = await client.hover({ workspace, at }, { timeoutMs: 60_000 });
    answers.push(hover.contents);
    const definition = await client.findDefinition(
      { workspace, at: { ...at, target: { case: "symbol", value: { name: "secret", lineHint: 2, occurrence: 0 } } } },
      { timeoutMs: 60_000 },
    );
    answers.push(JSON.stringify(definition, bigints));
    const diagnostics = await client.diagnostics(
      { workspace, files: ["src/leak.ts"], waitMs: 10_000 },
      { timeoutMs: 60_000 },
    );
    answers.push(JSON.stringify(diagnostics, bigints));
    // typescript-language-server checks every 3 s that the processId it was given is alive: in the
    // sandbox's pid namespace the runner's is not, so the session must not give one (the server
    // would exit and restart).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const status = await client.workspaceStatus({ workspace }, { timeoutMs: 10_000 });
    expect(status.languages.map((language) => [language.language, language.restarts])).toEqual([["typescript", 0]]);
    return answers.join("\n");
  } finally {
    client.close();
    await runner.close();
  }
}

describe.skipIf(!("sandbox" in ((await detectSandbox()) as object)))("bubblewrap sandbox", () => {
  test("control: without the sandbox, tsserver reads the other tenant's file and hover shows its canary", async () => {
    expect(await hoverStolen("none")).toContain(CANARY);
  }, 120_000);

  test("sandboxed: the other tenant's file does not exist for the server; no canary in hover, definition or diagnostics", async () => {
    const answers = await hoverStolen("bwrap");
    expect(answers).not.toContain(CANARY);
    // The import is unresolved from inside: tsserver says so (TS2307) instead of reading it.
    expect(answers).toMatch(/Cannot find module|2307/);
  }, 120_000);
});
