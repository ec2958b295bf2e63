// Tenants, workspaces, keys and NATS credentials changed while everything runs: nats-server in JWT
// mode (decentralized auth: nothing per tenant or runner in its configuration), two `lspmesh
// runner`s of one pool sharing its credential and two `lspmesh gateway`s started with
// LSPMESH_CONTROL=nats, changed with the `lspmesh admin` command only. Nothing is restarted: the
// NATS server's pid is the same at the end. A per-task workspace's TTL and admin's refusals run in
// `npm run test:faults` (with the rest).
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { NATS_USERS, WorkspaceUsageStore } from "@lspmesh/events";
import {
  fixturePath,
  type GatewayProcess,
  isFaultsTier,
  type NatsServer,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  tokenSha256,
  waitFor,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { credsAuthenticator, connect as natsConnect } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/lspmesh.js", import.meta.url));
const run = promisify(execFile);
/** How soon a change must be in force on every gateway, ms. */
const APPLY_WITHIN_MS = 2_000;
const SEED_TOKEN = "acme-seed-token-0123456789";

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

let root: string;
let nats: NatsServer;
let natsPid: number | undefined;
const runners: RunnerProcess[] = [];
const gateways: GatewayProcess[] = [];

/** `lspmesh admin …` as the NATS admin identity; stdout, stderr and the exit code. */
async function admin(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, "admin", ...args], {
      env: {
        ...process.env,
        LSPMESH_NATS_URL: nats.url,
        LSPMESH_NATS_TRUST_DIR: nats.trustDir,
        ...nats.env(NATS_USERS.admin),
      },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

/** One tool call through a gateway with a token: the result, or the HTTP refusal as an error text. */
async function call(gateway: GatewayProcess, token: string, name: string, args: Record<string, unknown>) {
  const client = new Client({ name: "control-plane-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: `refused: ${(error as Error).message}` }] } as ToolResult;
  } finally {
    await client.close();
  }
}

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

/**
 * Waits until `check` holds on every gateway; returns when the first round of checks that all held
 * was sent, in ms after `since` (when the change was in force, not how long a call takes).
 */
async function inForceOnEveryGateway(
  what: string,
  since: number,
  check: (gateway: GatewayProcess) => Promise<boolean>,
): Promise<number> {
  let sentAt = 0;
  await waitFor(
    what,
    async () => {
      sentAt = Date.now();
      return (await Promise.all(gateways.map(check))).every(Boolean);
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  return sentAt - since;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-control-"));
  const workspaces = join(root, "workspaces");
  cpSync(fixturePath("typescript-basic"), join(workspaces, "acme", "web"), { recursive: true });
  cpSync(fixturePath("typescript-basic"), join(workspaces, "beta", "task-1"), { recursive: true });
  cpSync(fixturePath("typescript-basic"), join(workspaces, "beta", "task-9"), { recursive: true });
  // A type error in each tenant's workspace: diagnostics on NATS that only its CI credential reads.
  for (const [tenant, workspace] of [
    ["acme", "web"],
    ["beta", "task-9"],
  ])
    writeFileSync(
      join(workspaces, tenant!, workspace!, "src/canary.ts"),
      `export const canary: number = "${tenant!.toUpperCase()}-CANARY";\n`,
    );
  // One pool's two replicas (ids `<pool>.<name>`), each with the pool's credential.
  const runnerIds = ["shared.lspmesh-runner-0", "shared.lspmesh-runner-1"];
  // JWT mode: the server's configuration names an operator and nothing else; every credential
  // beyond the services' is minted by `lspmesh admin creds` while it runs.
  nats = await startNatsServer({
    secured: { mode: "jwt", tenants: ["acme"], runners: runnerIds.map((id) => ({ id })) },
  });
  natsPid = nats.pid();
  // The GitOps seed: one tenant with one workspace and one key, from a file.
  const seed = join(root, "control.json");
  writeFileSync(
    seed,
    JSON.stringify({
      tenants: { acme: { workspaces: ["web"] } },
      keys: [{ id: "seed", tenant: "acme", sha256: tokenSha256(SEED_TOKEN), scopes: ["lsp:read"] }],
    }),
  );
  const applied = await admin("apply", "-f", seed);
  expect(applied.code, applied.stderr).toBe(0);
  const started = await Promise.allSettled([
    ...runnerIds.map(async (id) => runners.push(await startRunnerProcess(workspaces, nats, id))),
    ...[0, 1].map(async () => gateways.push(await startGatewayProcess({ natsUrl: nats, control: true }))),
  ]);
  for (const outcome of started) if (outcome.status === "rejected") throw outcome.reason;
}, 120_000);

afterAll(async () => {
  await Promise.all([...gateways, ...runners].map((service) => service.stop()));
  await nats?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

test("the seeded tenant's key answers on both gateways, and applying the same file again changes nothing", async () => {
  for (const gateway of gateways) {
    const result = await call(gateway, SEED_TOKEN, "workspace_status", {});
    expect(text(result), text(result)).toContain("web");
  }
  const again = await admin("apply", "-f", join(root, "control.json"));
  expect(again.stdout.trim()).toBe("no changes");
});

test("a tenant added with a key and a workspace answers on both gateways within 2 s; deleted, it is NOT_FOUND; revoked, the key is refused; NATS never restarted", async () => {
  const tenantAdded = await admin(
    "tenants",
    "add",
    "beta",
    "--calls-per-second",
    "50",
    "--workspace-pattern",
    "task-*",
  );
  expect(tenantAdded.code, tenantAdded.stderr).toBe(0);
  expect((await admin("workspaces", "add", "beta", "task-1")).code).toBe(0);
  const added = await admin("keys", "add", "beta", "agent", "--scopes", "lsp:read,lsp:write");
  expect(added.code, added.stderr).toBe(0);
  const token = added.stdout.trim();
  expect(token).toMatch(/^lsm_[A-Za-z0-9_-]{43}$/);
  const since = Date.now();
  const usable = await inForceOnEveryGateway("the new tenant's key on every gateway", since, async (gateway) => {
    const result = await call(gateway, token, "workspace_status", { workspace: "task-1" });
    return !result.isError;
  });
  console.log(`control plane: new tenant usable on both gateways ${usable} ms after lspmesh admin returned`);
  expect(usable).toBeLessThan(APPLY_WITHIN_MS);
  // A real answer from the language server, through each gateway.
  for (const gateway of gateways) {
    const hover = await call(gateway, token, "hover", {
      workspace: "task-1",
      file: "src/greeter.ts",
      line: 1,
      column: 14,
    });
    expect(hover.isError, text(hover)).toBeFalsy();
  }

  // A per-task folder the writer made, never registered: the tenant's pattern admits it.
  const unlisted = await call(gateways[1]!, token, "hover", {
    workspace: "task-9",
    file: "src/greeter.ts",
    line: 1,
    column: 14,
  });
  expect(unlisted.isError, text(unlisted)).toBeFalsy();

  // Deleted: NOT_FOUND naming it, on both gateways (the pattern matches it, the tombstone wins).
  expect((await admin("workspaces", "remove", "beta", "task-1")).code).toBe(0);
  const deletedAt = Date.now();
  const gone = await inForceOnEveryGateway("the deleted workspace refused", deletedAt, async (gateway) => {
    const result = await call(gateway, token, "hover", {
      workspace: "task-1",
      file: "src/greeter.ts",
      line: 1,
      column: 14,
    });
    return result.isError === true && /^NOT_FOUND/.test(text(result)) && text(result).includes("'task-1' was deleted");
  });
  console.log(`control plane: deleted workspace NOT_FOUND on both gateways after ${gone} ms`);
  expect(gone).toBeLessThan(APPLY_WITHIN_MS);

  // Revoked: the key no longer authenticates.
  expect((await admin("keys", "remove", "beta", "agent")).code).toBe(0);
  const revokedAt = Date.now();
  const refused = await inForceOnEveryGateway("the revoked key refused", revokedAt, async (gateway) => {
    const result = await call(gateway, token, "workspace_status", {});
    return result.isError === true && text(result).startsWith("refused:") && /401|invalid_token/i.test(text(result));
  });
  console.log(`control plane: revoked key refused on both gateways after ${refused} ms`);
  expect(refused).toBeLessThan(APPLY_WITHIN_MS);
  expect(nats.pid()).toBe(natsPid);
}, 180_000);

test.runIf(isFaultsTier())(
  "a per-task workspace: the runners make its folder, it is used, then idle past its TTL it is deleted, folder and all",
  async () => {
    expect((await admin("tenants", "add", "beta", "--workspace-pattern", "task-*")).code).toBe(0);
    const added = await admin("workspaces", "add", "beta", "pr-42", "--create", "--idle-ttl", "2s");
    expect(added.code, added.stderr).toBe(0);
    const folder = join(root, "workspaces", "beta", "pr-42");
    const since = Date.now();
    await waitFor("pr-42's folder made by the runners", () => existsSync(folder), { timeoutMs: APPLY_WITHIN_MS });
    console.log(`control plane: per-task folder made ${Date.now() - since} ms after lspmesh admin returned`);
    cpSync(fixturePath("typescript-basic"), folder, { recursive: true });
    const key = await admin("keys", "add", "beta", "pr-bot", "--scopes", "lsp:read");
    expect(key.code, key.stderr).toBe(0);
    const token = key.stdout.trim();
    const hover = await waitFor("pr-42 answering", async () => {
      const result = await call(gateways[0]!, token, "hover", {
        workspace: "pr-42",
        file: "src/greeter.ts",
        line: 1,
        column: 14,
      });
      return result.isError ? undefined : result;
    });
    expect(text(hover)).toContain("greet");
    const usedAt = Date.now();
    // The gateway recorded the use (the TTL counts from it).
    const reader = await natsConnect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.admin) });
    try {
      const recorded = await waitFor("pr-42's use recorded", async () =>
        (await (await WorkspaceUsageStore.open(reader)).lastUses()).get("beta.pr-42"),
      );
      expect(recorded).toBeGreaterThan(since);
    } finally {
      await reader.close();
    }

    // Idle past its TTL (2 s after that last use), `workspaces expire` deletes it (a gateway holding
    // the admin identity does the same every 30 s).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, usedAt + 2_200 - Date.now())));
    const expired = await admin("workspaces", "expire");
    expect(expired.code, expired.stderr).toBe(0);
    expect(expired.stdout).toContain("workspaces.beta.pr-42");
    const deletedAt = Date.now();
    await waitFor("pr-42's folder removed by the runners", () => !existsSync(folder), { timeoutMs: APPLY_WITHIN_MS });
    console.log(`control plane: expired workspace's folder removed ${Date.now() - deletedAt} ms after expire returned`);
    const gone = await call(gateways[1]!, token, "hover", {
      workspace: "pr-42",
      file: "src/greeter.ts",
      line: 1,
      column: 14,
    });
    expect(text(gone)).toMatch(/NOT_FOUND.*'pr-42' was deleted/s);
    // The tenant's other workspaces are untouched.
    expect(existsSync(join(root, "workspaces", "beta", "task-9", "src", "canary.ts"))).toBe(true);
    expect(nats.pid()).toBe(natsPid);
  },
  120_000,
);

/** `lspmesh diagnostics` (one replay) with a creds file: its output and exit code. */
async function diagnostics(creds: string, tenant: string, workspace: string) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [CLI, "diagnostics", "--nats", nats.url, "--nats-creds", creds, "--tenant", tenant, "--workspace", workspace],
      { env: { ...process.env, LSPMESH_NATS_USER: "", LSPMESH_NATS_PASSWORD: "", LSPMESH_NATS_CREDS: "" } },
    );
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

test("CI credentials minted while NATS runs: diagnostics --watch reads only their tenant's; revoked, the watch ends and reconnecting is refused within 2 s", async () => {
  // Both tenants' canaries on NATS: a call in each workspace opens a session that publishes them.
  const acmeToken = SEED_TOKEN;
  await call(gateways[0]!, acmeToken, "diagnostics", { workspace: "web", files: ["src/canary.ts"], wait_ms: 20_000 });
  expect((await admin("tenants", "add", "beta", "--workspace-pattern", "task-*")).code).toBe(0);
  const key = await admin("keys", "add", "beta", "ci-reader", "--scopes", "lsp:read");
  expect(key.code, key.stderr).toBe(0);
  const betaToken = key.stdout.trim();
  await waitFor(
    "beta's key usable",
    async () => !(await call(gateways[1]!, betaToken, "workspace_status", {})).isError,
  );
  await call(gateways[1]!, betaToken, "diagnostics", {
    workspace: "task-9",
    files: ["src/canary.ts"],
    wait_ms: 20_000,
  });

  const minted = await admin("creds", "ci", "beta", "--out", join(root, "ci-beta.creds"));
  expect(minted.code, minted.stderr).toBe(0);
  const creds = join(root, "ci-beta.creds");
  const listed = await admin("creds", "list", "--json");
  expect(
    (JSON.parse(listed.stdout) as Array<{ name: string; tenant?: string }>).map((r) => [r.name, r.tenant]),
  ).toEqual([["ci-beta", "beta"]]);

  await waitFor(
    "beta's canary readable with its CI credential",
    async () => {
      const result = await diagnostics(creds, "beta", "task-9");
      if (!/src\/canary\.ts: 1 error/.test(result.stdout))
        throw new Error(`exit ${result.code}: ${result.stdout.slice(0, 300)} ${result.stderr.slice(0, 300)}`);
      return result;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  const other = await diagnostics(creds, "acme", "web");
  expect(other.code).not.toBe(0);
  expect(other.stdout).not.toContain("canary.ts");
  expect(other.stderr).toMatch(/NATS refused to let this identity read .*use the credentials of tenant .acme./);

  // `lspmesh diagnostics --watch` with the credential: it shows its tenant's file, then is revoked.
  const watch = spawn(
    process.execPath,
    [
      CLI,
      "diagnostics",
      "--watch",
      "--nats",
      nats.url,
      "--nats-creds",
      creds,
      "--tenant",
      "beta",
      "--workspace",
      "task-9",
    ],
    { env: { ...process.env, LSPMESH_NATS_USER: "", LSPMESH_NATS_PASSWORD: "", LSPMESH_NATS_CREDS: "" } },
  );
  let watched = "";
  let watchErrors = "";
  watch.stdout.setEncoding("utf8").on("data", (chunk: string) => (watched += chunk));
  watch.stderr.setEncoding("utf8").on("data", (chunk: string) => (watchErrors += chunk));
  const exited = once(watch, "exit") as Promise<[number | null]>;
  try {
    await waitFor("the watch showing beta's canary", () => /src\/canary\.ts: 1 error/.test(watched), {
      timeoutMs: 30_000,
    });
    const revoked = await admin("creds", "revoke", "ci-beta");
    expect(revoked.code, revoked.stderr).toBe(0);
    const revokedAt = Date.now();
    const [code] = await Promise.race([
      exited,
      new Promise<[null]>((resolve) => setTimeout(() => resolve([null]), 10_000)),
    ]);
    const endedAfter = Date.now() - revokedAt;
    console.log(`control plane: diagnostics --watch with the revoked CI credential ended after ${endedAfter} ms`);
    expect(code, watchErrors).toBe(2);
    expect(watchErrors).toMatch(/NATS closed the connection: .*lspmesh admin creds ci beta/s);
    expect(endedAfter).toBeLessThan(APPLY_WITHIN_MS);
  } finally {
    watch.kill();
  }
  await expect(
    natsConnect({ servers: nats.url, authenticator: credsAuthenticator(readFileSync(creds)), reconnect: false }),
  ).rejects.toThrow(/authoriz|revoked/i);
  const refused = await diagnostics(creds, "beta", "task-9");
  expect(refused.code).not.toBe(0);
  expect(refused.stdout).not.toContain("canary.ts");
  expect((await admin("creds", "list", "--json")).stdout.trim()).toBe("[]");
  expect(nats.pid()).toBe(natsPid);
}, 180_000);

test.runIf(isFaultsTier())(
  "admin refuses bad requests with the fix and exit status 2, writing nothing",
  async () => {
    const cases: Array<[string[], RegExp]> = [
      [["tenants", "add", "Not An Id"], /is not an id/],
      [["workspaces", "add", "nobody", "web"], /no tenant 'nobody'; add it first/],
      [["keys", "add", "acme", "x", "--scopes", "lsp:root"], /scopes must be lsp:read and\/or lsp:write/],
      [["keys", "remove", "acme", "missing"], /has no key 'missing'/],
      [["workspaces", "remove", "acme", "nope"], /no workspace 'nope'/],
      [["frobnicate"], /unknown admin request/],
      [["creds", "ci"], /creds ci takes TENANT/],
      [["creds", "root", "acme"], /unknown creds kind 'root'/],
      [["creds", "revoke", "nobody"], /no NATS credentials named 'nobody'/],
      [["creds", "ci", "acme", "--expires-in", "soon"], /--expires-in must be/],
    ];
    for (const [args, message] of cases) {
      const result = await admin(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const listed = await admin("tenants", "list", "--json");
    expect(Object.keys(JSON.parse(listed.stdout))).toEqual(["acme", "beta"]);
    // Twelve CLI processes one after another: about 2 s each on a busy 2-core machine.
  },
  90_000,
);
