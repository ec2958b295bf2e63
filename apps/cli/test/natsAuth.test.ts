// `lspmesh nats-auth` prints an authorization block nats-server accepts, with every password a
// variable from the server's environment (never a literal in the file); with --jwt, an operator
// trust and a configuration that names no tenant or runner.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { runCli } from "./cli.js";

const dir = mkdtempSync(join(tmpdir(), "lspmesh-nats-auth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NATS_SERVER = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find(existsSync);

test("the block names each identity with a password variable, and nats-server accepts it", async () => {
  const result = await runCli(["nats-auth", "--runners", "ts-0,acme-0:acme", "--tenants", "acme,globex"], { cwd: dir });
  expect(result.code).toBe(0);
  const users = [...result.stdout.matchAll(/user: "([^"]+)"\n\s+password: (\S+)/g)].map(([, user, password]) => [
    user,
    password,
  ]);
  expect(users).toEqual([
    ["gateway", "$LSPMESH_NATS_GATEWAY_PASSWORD"],
    ["ts-0", "$LSPMESH_NATS_TS_0_PASSWORD"],
    ["acme-0", "$LSPMESH_NATS_ACME_0_PASSWORD"],
    ["ci-acme", "$LSPMESH_NATS_CI_ACME_PASSWORD"],
    ["writer-acme", "$LSPMESH_NATS_WRITER_ACME_PASSWORD"],
    ["ci-globex", "$LSPMESH_NATS_CI_GLOBEX_PASSWORD"],
    ["writer-globex", "$LSPMESH_NATS_WRITER_GLOBEX_PASSWORD"],
  ]);
  // acme-0 serves only acme: its subjects name no other tenant.
  const acmeRunner = result.stdout.slice(
    result.stdout.indexOf('user: "acme-0"'),
    result.stdout.indexOf('user: "ci-acme"'),
  );
  expect(acmeRunner).toContain('"lspmesh.diag.acme.>"');
  expect(acmeRunner).not.toContain('"lspmesh.diag.>"');

  if (!NATS_SERVER) return;
  const conf = join(dir, "nats.conf");
  writeFileSync(conf, `listen: "127.0.0.1:-1"\njetstream { store_dir: "${join(dir, "js")}" }\n${result.stdout}`);
  const env = Object.fromEntries(users.map(([, variable]) => [variable!.slice(1), "a-password-from-a-secret"]));
  expect(() =>
    execFileSync(NATS_SERVER, ["-t", "-c", conf], { env: { ...process.env, ...env }, stdio: "pipe" }),
  ).not.toThrow();
});

test("--jwt writes a trust directory, owner-only secrets and a server configuration nats-server accepts", async () => {
  const out = join(dir, "trust");
  const result = await runCli(["nats-auth", "--jwt", "--out", out, "--resolver-dir", join(dir, "jwt")], { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  for (const secret of ["operator.nk", "account.nk", "system.nk", "system-user.creds", "admin.creds", "gateway.creds"])
    expect(statSync(join(out, secret)).mode & 0o777, secret).toBe(0o600);
  const config = readFileSync(join(out, "nats-jwt.conf"), "utf8");
  expect(config).toMatch(/^operator: eyJ/m);
  // No seed in the server's configuration: only public JWTs and keys.
  for (const seed of ["operator.nk", "account.nk", "system.nk"])
    expect(config).not.toContain(readFileSync(join(out, seed), "utf8").trim());
  // A second run never overwrites a trust (every credential minted from it would break).
  const again = await runCli(["nats-auth", "--jwt", "--out", out], { cwd: dir });
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(/already holds a NATS trust/);
  expect((await runCli(["nats-auth", "--jwt"], { cwd: dir })).stderr).toMatch(/--jwt needs --out DIR/);

  if (!NATS_SERVER) return;
  const conf = join(dir, "nats-jwt-test.conf");
  writeFileSync(conf, `listen: "127.0.0.1:-1"\njetstream { store_dir: "${join(dir, "js2")}" }\n${config}`);
  expect(() => execFileSync(NATS_SERVER, ["-t", "-c", conf], { stdio: "pipe" })).not.toThrow();
});
