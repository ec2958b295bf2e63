// `lspmesh grpc-secrets` derives each runner's secret from the gateways' key exactly as gateways
// do when they call that runner (deriveRunnerSecret), and writes them for a Secret, owner-only.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deriveRunnerSecret } from "@lspmesh/grpc";
import { afterAll, expect, test } from "vitest";
import { runCli } from "./cli.js";

const dir = mkdtempSync(join(tmpdir(), "lspmesh-grpc-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = "the-gateways-key-0123456789";
const keyFile = join(dir, "key");
writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });

test("prints one line per runner, or writes one owner-only file per runner id", async () => {
  const printed = await runCli(["grpc-secrets", "--key-file", keyFile, "--runners", "pool-0,10.0.0.7:7421"], {
    cwd: dir,
  });
  expect(printed.code).toBe(0);
  expect(printed.stdout).toBe(
    `pool-0 ${deriveRunnerSecret(KEY, "pool-0")}\n10.0.0.7:7421 ${deriveRunnerSecret(KEY, "10.0.0.7:7421")}\n`,
  );
  expect(deriveRunnerSecret(KEY, "pool-0")).not.toBe(deriveRunnerSecret(KEY, "pool-1"));

  const out = join(dir, "secrets");
  const written = await runCli(["grpc-secrets", "--key-file", keyFile, "--runners", "pool-0,pool-1", "--out", out], {
    cwd: dir,
  });
  expect(written.code).toBe(0);
  for (const id of ["pool-0", "pool-1"]) {
    expect(readFileSync(join(out, id), "utf8")).toBe(`${deriveRunnerSecret(KEY, id)}\n`);
    expect(statSync(join(out, id)).mode & 0o777).toBe(0o600);
  }
});
