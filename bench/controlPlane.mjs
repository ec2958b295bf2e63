#!/usr/bin/env node
// The control plane at scale: --tenants tenants (default 1 000) × 3 workspaces × 1 API key, on a
// real nats-server (JWT mode: decentralized auth) and two `lspmesh gateway` processes with
// LSPMESH_CONTROL=nats, each figure against a baseline measured in the same run:
//   - apply: `lspmesh admin apply -f` of the whole file (validation, diff, one put per key, audit
//     lines); baseline: the same keys put by a bare @nats-io/kv client (NATS's own floor).
//   - usable: from the moment apply returns until the last tenant's token is accepted by both
//     gateways (they were running, following the bucket); and a gateway started afterwards: time to
//     load the whole bucket (its "control plane loaded" line).
//   - gateway memory: RSS of a gateway holding every tenant, against one holding the empty bucket.
//   - symbol indexes: the gateway's index cache (bounded: 128 MiB estimated, 1 000 tenants) after
//     every tenant searched once (--symbols declarations each), heap held, against the same cache
//     unbounded.
//   - NATS configuration: the JWT-mode server configuration after a CI and a writer credential were
//     minted for every tenant (it does not change), against the password mode's authorization
//     block with those users; and the time to mint one credential.
// Usage: node --expose-gc bench/controlPlane.mjs [--tenants 1000] [--symbols 600]
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import {
  createNatsTrust,
  InMemorySymbolIndexStore,
  mintNatsUser,
  NATS_USERS,
  natsAuthorizationConfig,
  natsJwtServerConfig,
} from "@lspmesh/events";
import { SymbolIndexCache, sha256Hex } from "@lspmesh/gateway";
import { startGatewayProcess, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { endRun, MiB, rssBytes } from "./lib/cluster.mjs";
import { elapsedMs, printTable, writeResult } from "./lib/stats.mjs";

const { values } = parseArgs({
  options: { tenants: { type: "string", default: "1000" }, symbols: { type: "string", default: "600" } },
});
const TENANTS = Number(values.tenants);
const SYMBOLS = Number(values.symbols);
const CLI = fileURLToPath(new URL("../apps/cli/bin/lspmesh.js", import.meta.url));
const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-control-"));
const tenantId = (i) => `t${String(i).padStart(5, "0")}`;
const tokenOf = (i) => `bench-${tenantId(i)}-token-0123456789`;

/** The seed file: TENANTS tenants, 3 workspaces and one key each. */
function controlFile() {
  const tenants = {};
  const keys = [];
  for (let i = 0; i < TENANTS; i++) {
    tenants[tenantId(i)] = { workspaces: ["web", "api", `task-${i}`], limits: { callsPerSecond: 20 } };
    keys.push({ id: "agent", tenant: tenantId(i), sha256: sha256Hex(tokenOf(i)), scopes: ["lsp:read"] });
  }
  return { tenants, keys };
}

/** Accepted (tools/list answered) or refused (401) by the gateway, with a token. */
async function accepted(gateway, token) {
  const response = await fetch(gateway.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    }),
  });
  await response.arrayBuffer();
  return response.status === 200;
}

async function symbolCacheHeld(bounded) {
  // The runner side's store (the product's own in-memory one) holds every tenant's declarations;
  // what the cache adds on top is its TenantIndex per tenant (names lower-cased, masks, arrays).
  const store = new InMemorySymbolIndexStore();
  const files = Math.max(1, Math.round(SYMBOLS / 20));
  for (let t = 0; t < TENANTS; t++) {
    for (let f = 0; f < files; f++) {
      const symbols = Array.from({ length: 20 }, (_, s) => ({
        name: `handler${t}_${f}_${s}Request`,
        kind: "function",
        line: s + 1,
        column: 17,
        endLine: s + 1,
        endColumn: 40,
        exported: true,
        snippet: `export function handler${t}_${f}_${s}Request(context: Context): Promise<Response> {`,
      }));
      await store.putFile(tenantId(t), "web", {
        v: 1,
        file: `src/routes/module${f}.ts`,
        language: "typescript",
        source: "typescript-syntax",
        epoch: 1,
        mtimeMs: 1,
        size: 1000,
        symbols,
      });
    }
  }
  // Each update decoded afresh, as a gateway's KV watch delivers it (JSON off the wire): the cache
  // owns its entries, as in production, instead of sharing the store's objects.
  const reader = {
    follow: (tenant, onUpdate, onEnd) =>
      store.follow(tenant, (update) => onUpdate(JSON.parse(JSON.stringify(update))), onEnd),
  };
  global.gc?.();
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const cache = new SymbolIndexCache(
    reader,
    bounded ? {} : { maxBytes: Number.POSITIVE_INFINITY, maxTenants: Number.POSITIVE_INFINITY },
  );
  const started = process.hrtime.bigint();
  for (let t = 0; t < TENANTS; t++) await cache.tenant(tenantId(t));
  const ms = elapsedMs(started);
  global.gc?.();
  global.gc?.();
  const held = process.memoryUsage().heapUsed - before;
  const result = { loaded: cache.loadedTenants().length, estimatedBytes: cache.bytes, heldBytes: held, ms };
  cache.close();
  return result;
}

let failed;
const nats = await startNatsServer({ secured: { tenants: [], mode: "jwt" } });
const gateways = [];
try {
  const file = controlFile();
  const path = join(root, "control.json");
  writeFileSync(path, JSON.stringify(file));
  const adminEnv = { ...process.env, LSPMESH_NATS_URL: nats.url, ...nats.env(NATS_USERS.admin) };

  // Two gateways following the (empty) bucket; the first one's memory is the empty baseline.
  gateways.push(await startGatewayProcess({ natsUrl: nats, control: true }));
  gateways.push(await startGatewayProcess({ natsUrl: nats, control: true }));
  const emptyRss = rssBytes(gateways[0].pid);

  // Baseline: the same keys put by a bare KV client, in a bucket of their own.
  const nc = await connect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.admin) });
  const kv = await new Kvm(nc).create("bench-floor", { history: 5 });
  const entries = [];
  for (const [tenant, config] of Object.entries(file.tenants)) {
    entries.push([`tenants.${tenant}`, JSON.stringify({ v: 1, limits: config.limits })]);
    for (const ws of config.workspaces) entries.push([`workspaces.${tenant}.${ws}`, '{"v":1}']);
  }
  for (const key of file.keys)
    entries.push([`keys.${key.tenant}.${key.id}`, JSON.stringify({ v: 1, sha256: key.sha256, scopes: key.scopes })]);
  let started = process.hrtime.bigint();
  for (const [key, value] of entries) await kv.put(key, value);
  const floorMs = elapsedMs(started);

  started = process.hrtime.bigint();
  const applied = await run(process.execPath, [CLI, "admin", "apply", "-f", path], {
    env: adminEnv,
    maxBuffer: 64 * MiB,
  });
  const applyMs = elapsedMs(started);
  const changes = applied.stdout.split("\n").filter((line) => /^[+~-] /.test(line)).length;

  started = process.hrtime.bigint();
  const last = TENANTS - 1;
  await waitFor(
    "the last tenant's key on both gateways",
    async () => {
      const answers = await Promise.all(gateways.map((gateway) => accepted(gateway, tokenOf(last))));
      return answers.every(Boolean);
    },
    { timeoutMs: 60_000, intervalMs: 10 },
  );
  const usableMs = elapsedMs(started);
  // Every tenant's key, on both gateways (a sample of 50 spread over the range).
  for (let i = 0; i < TENANTS; i += Math.max(1, Math.floor(TENANTS / 50)))
    for (const gateway of gateways)
      if (!(await accepted(gateway, tokenOf(i)))) throw new Error(`${tenantId(i)} refused`);

  started = process.hrtime.bigint();
  const late = await startGatewayProcess({ natsUrl: nats, control: true });
  gateways.push(late);
  const lateStartMs = elapsedMs(started);
  const fullRss = rssBytes(gateways[0].pid);
  const again = await run(process.execPath, [CLI, "admin", "apply", "-f", path], {
    env: adminEnv,
    maxBuffer: 64 * MiB,
  });

  const bounded = await symbolCacheHeld(true);
  const unbounded = await symbolCacheHeld(false);

  const filesModeAuth = natsAuthorizationConfig({
    runners: [{ id: "lspmesh-runner-0" }],
    tenants: Array.from({ length: TENANTS }, (_, i) => tenantId(i)),
    password: (user) => `$LSPMESH_NATS_${user.toUpperCase().replace(/-/g, "_")}_PASSWORD`,
  });
  // JWT mode: a CI and a writer credential minted per tenant (the first 100: signing is ~0.1 s in
  // pure-JS ed25519); the server's configuration does not change, so its size holds for any number.
  const trust = await createNatsTrust();
  const jwtConfigBefore = natsJwtServerConfig(trust, "/data/jwt");
  const minted = Math.min(TENANTS, 100);
  const mintStarted = process.hrtime.bigint();
  for (let i = 0; i < minted; i++) {
    await mintNatsUser(trust, { kind: "ci", tenant: tenantId(i) });
    await mintNatsUser(trust, { kind: "writer", tenant: tenantId(i) });
  }
  const mintMs = elapsedMs(mintStarted) / (2 * minted);
  const controlAuth = natsJwtServerConfig(trust, "/data/jwt");
  if (controlAuth !== jwtConfigBefore) throw new Error("minting changed the server configuration");

  const rows = [
    {
      figure: `apply ${entries.length} keys (lspmesh admin apply)`,
      value: applyMs,
      baseline: floorMs,
      unit: "ms",
      ratio: applyMs / floorMs,
    },
    {
      figure: "apply again (no changes)",
      value: again.stdout.trim() === "no changes" ? 0 : Number.NaN,
      baseline: 0,
      unit: "changes",
      ratio: Number.NaN,
    },
    {
      figure: "last tenant usable on both gateways after apply",
      value: usableMs,
      baseline: Number.NaN,
      unit: "ms",
      ratio: Number.NaN,
    },
    {
      figure: "gateway started after: listening, bucket loaded",
      value: lateStartMs,
      baseline: Number.NaN,
      unit: "ms",
      ratio: Number.NaN,
    },
    {
      figure: `gateway RSS with ${TENANTS} tenants`,
      value: fullRss / MiB,
      baseline: emptyRss / MiB,
      unit: "MiB",
      ratio: fullRss / emptyRss,
    },
    {
      figure: `index cache after ${TENANTS} tenants searched: heap held (bounded)`,
      value: bounded.heldBytes / MiB,
      baseline: unbounded.heldBytes / MiB,
      unit: "MiB",
      ratio: bounded.heldBytes / unbounded.heldBytes,
    },
    {
      figure: "index cache: tenants kept (bounded vs unbounded)",
      value: bounded.loaded,
      baseline: unbounded.loaded,
      unit: "tenants",
      ratio: bounded.loaded / unbounded.loaded,
    },
    {
      figure: "index cache: estimated bytes (bounded vs unbounded)",
      value: bounded.estimatedBytes / MiB,
      baseline: unbounded.estimatedBytes / MiB,
      unit: "MiB",
      ratio: bounded.estimatedBytes / unbounded.estimatedBytes,
    },
    {
      figure: `NATS server auth configuration, ${TENANTS} tenants' CI + writer credentials (JWT vs passwords)`,
      value: controlAuth.length / 1024,
      baseline: filesModeAuth.length / 1024,
      unit: "KiB",
      ratio: controlAuth.length / filesModeAuth.length,
    },
    {
      figure: "mint one NATS credential (sign a user JWT)",
      value: mintMs,
      baseline: Number.NaN,
      unit: "ms",
      ratio: Number.NaN,
    },
  ];
  printTable(
    `control plane: ${TENANTS} tenants × 3 workspaces × 1 key (${changes} changes applied)`,
    ["figure", "value", "baseline", "unit", "ratio"],
    rows,
  );
  writeResult("controlPlane", { tenants: TENANTS, symbolsPerTenant: SYMBOLS, rows, bounded, unbounded });
  await nc.close();
} catch (error) {
  failed = error;
} finally {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await nats.close();
  endRun(root, failed);
}
