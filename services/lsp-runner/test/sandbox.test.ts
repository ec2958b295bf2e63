// Below the server: a TypeScript file of tenant acme that imports another tenant's file by its
// absolute path. Without the sandbox tsserver reads that file and hover shows its canary (the
// control proving the test can fail); in the sandbox the file does not exist for the server, and
// nothing of it reaches an answer.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { needs } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LifecycleEvent } from "../src/lsp/pool/sessionManager.js";
import { type RunningRunner, startRunner } from "../src/startRunner.js";

const CANARY = "GLOBEX-SECRET-CANARY-7f3a";
/**
 * typescript-language-server checks every 3 000 ms, from its initialize on, that the processId it
 * was given is alive; a check that fails ends it. Waited out from the server's start, plus room
 * for a late timer, ms.
 */
const PROCESS_ID_CHECKED_MS = 3_000 + 1_000;
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-sandbox-"));
  const globex = join(root, "globex", "shop", "src");
  mkdirSync(globex, { recursive: true });
  writeFileSync(join(globex, "secret.ts"), `/** ${CANARY} */\nexport const secret = "${CANARY}" as const;\n`);
  const acme = join(root, "acme", "web", "src");
  mkdirSync(acme, { recursive: true });
  writeFileSync(
    join(root, "acme", "web", "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, lib: ["ES2022"], types: [] } }),
  );
  writeFileSync(
    join(acme, "leak.ts"),
    `import { secret } from "${join(globex, "secret")}";\nexport const stolen = secret;\n`,
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bigints = (_key: string, value: unknown) => (typeof value === "bigint" ? String(value) : value);

// Built with startRunner, not the test helper: the `sandbox` setting ("bwrap" | "none") and how
// startRunner turns it into the sessions' sandbox is part of what is tested.
async function hoverStolen(sandbox: "bwrap" | "none"): Promise<string> {
  const lifecycle: Array<LifecycleEvent & { at: number }> = [];
  const runner: RunningRunner = await startRunner(
    { listen: "127.0.0.1:0", workspaces: { root }, sandbox },
    { onLifecycleEvent: (event) => lifecycle.push({ ...event, at: Date.now() }) },
  );
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
    if (sandbox === "bwrap") {
      // In the sandbox's pid namespace the runner's pid does not exist, so the session must not
      // give it as processId (the server would exit at its first check and restart): nothing may
      // happen for a whole check period after the server started. Without the sandbox the
      // processId is the runner's own, alive, so there is nothing to wait out.
      const started = lifecycle.find((event) => event.kind === "started");
      expect(started).toBeDefined();
      await sleep(Math.max(0, started!.at + PROCESS_ID_CHECKED_MS - Date.now()));
    }
    expect(lifecycle.filter((event) => event.kind !== "started")).toEqual([]);
    const status = await client.workspaceStatus({ workspace }, { timeoutMs: 10_000 });
    expect(status.languages.map((language) => [language.language, language.restarts])).toEqual([["typescript", 0]]);
    return answers.join("\n");
  } finally {
    client.close();
    await runner.close();
  }
}

// Runs without bubblewrap too: it proves the sandboxed test below can fail.
test("control: without the sandbox, tsserver reads the other tenant's file and hover shows its canary", async () => {
  expect(await hoverStolen("none")).toContain(CANARY);
}, 120_000);

describe.skipIf(!needs("bubblewrap", "sandbox"))("bubblewrap sandbox", () => {
  test("sandboxed: the other tenant's file does not exist for the server; no canary in hover, definition or diagnostics", async () => {
    const answers = await hoverStolen("bwrap");
    expect(answers).not.toContain(CANARY);
    // The import is unresolved from inside: tsserver says so (TS2307) instead of reading it.
    expect(answers).toMatch(/Cannot find module|2307/);
  }, 120_000);
});
