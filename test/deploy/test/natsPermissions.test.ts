// The shipped NATS configuration (deploy/nats/nats.conf with the nats-jwt.conf of
// `lspmesh nats-auth --jwt`) on a real nats-server, with credentials minted the way
// `lspmesh admin creds` mints them: every identity can do what lspmesh needs, and nothing more.
// A client needs a credential signed by the deployment's account; a runner pool's credential
// (shared by its replicas, ids `<pool>.<name>`) minted for its tenants reads only its own pool's
// registry entries and claims (handoff), cannot write another pool's key, nor publish outside its tenants' subjects; a tenant's CI bot reads
// only lspmesh.diag.<tenant>.>, live or through JetStream, and sees no other tenant's subjects,
// consumers or replies.

import { createNatsTrust, inboxPrefixOf, type NatsJwtIdentity } from "@lspmesh/events";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, createInbox, type NatsConnection, nanos } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ShippedNats, startShippedNats } from "../src/shippedNats.js";

/** The base's pools serve every tenant: credentials minted without --tenants. */
const TYPESCRIPT: NatsJwtIdentity = { kind: "runner", pool: "typescript" };
const PYTHON: NatsJwtIdentity = { kind: "runner", pool: "python" };
/** prod: acme's dedicated pool, and the shared TypeScript pool confined to globex. */
const ACME_POOL: NatsJwtIdentity = { kind: "runner", pool: "typescript-acme", tenants: ["acme"] };
const GLOBEX_POOL: NatsJwtIdentity = { kind: "runner", pool: "typescript", tenants: ["globex"] };
const GATEWAY: NatsJwtIdentity = { kind: "gateway" };
const CI_ACME: NatsJwtIdentity = { kind: "ci", tenant: "acme" };
const WRITER_ACME: NatsJwtIdentity = { kind: "writer", tenant: "acme" };

// Runner ids as the StatefulSets set them: LSPMESH_RUNNER_ID=<pool>.$(POD_NAME).
const RUNNER = "typescript.lspmesh-runner-typescript-0";
const REPLICA = "typescript.lspmesh-runner-typescript-1";
const PYTHON_RUNNER = "python.lspmesh-runner-python-0";
const ACME_RUNNER = "typescript-acme.lspmesh-runner-typescript-acme-0";
const ACME_FILE = "lspmesh.diag.acme.web.c3JjL2EudHM";
const GLOBEX_FILE = "lspmesh.diag.globex.shop.c3JjL2EudHM";
const API_TIMEOUT_MS = 3_000;
/** The inbox prefix of the acme CI bot (client option inboxPrefix): no other identity may read it. */
const CI_INBOX = inboxPrefixOf("ci-acme");

let nats: ShippedNats;

/** Resolves with the first permission error the connection reports for `subject`. */
function violationOn(nc: NatsConnection, subject: string, ms = API_TIMEOUT_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    void (async () => {
      for await (const status of nc.status()) {
        const text = String(status.type === "error" ? status.error : "");
        if (/Permissions Violation/.test(text) && text.includes(`"${subject}"`)) {
          clearTimeout(timer);
          resolve(text);
          return;
        }
      }
    })();
  });
}

async function expectPublishDenied(nc: NatsConnection, subject: string): Promise<void> {
  const violation = violationOn(nc, subject);
  nc.publish(subject, "x");
  await nc.flush();
  expect(await violation, `publish to ${subject}`).toMatch(/Permissions Violation for Publish/);
}

async function expectSubscribeDenied(nc: NatsConnection, subject: string): Promise<void> {
  const violation = violationOn(nc, subject);
  const subscription = nc.subscribe(subject, { callback: () => {} });
  await nc.flush();
  expect(await violation, `subscribe to ${subject}`).toMatch(/Permissions Violation for Subscription/);
  subscription.unsubscribe();
}

/** What a runner does at start (services/lsp-runner NatsEventBus): stream, registry bucket, its own entry. */
async function startAsRunner(nc: NatsConnection, id: string) {
  const jsm = await jetstreamManager(nc, { timeout: API_TIMEOUT_MS });
  const exists = await jsm.streams.info("LSPMESH_DIAG").catch(() => undefined);
  if (!exists) await jsm.streams.add({ name: "LSPMESH_DIAG", subjects: ["lspmesh.diag.>"], max_msgs_per_subject: 1 });
  const js = jetstream(nc, { timeout: API_TIMEOUT_MS });
  const kv = await new Kvm(js).create("lspmesh-runners", { history: 1 });
  await kv.put(id, JSON.stringify({ id, address: `${id}:7421` }));
  return { js, jsm, kv };
}

beforeAll(async () => {
  nats = await startShippedNats();
  // Runners of two pools registered, and diagnostics stored for two tenants.
  const runner = await startAsRunner(await nats.connectAs(TYPESCRIPT), RUNNER);
  await startAsRunner(await nats.connectAs(PYTHON), PYTHON_RUNNER);
  await runner.js.publish(ACME_FILE, JSON.stringify({ tenant: "acme", diagnostics: [] }));
  await runner.js.publish(GLOBEX_FILE, JSON.stringify({ tenant: "globex", diagnostics: [] }));
});

afterAll(async () => {
  await nats?.close();
});

describe("who may connect", () => {
  test("no client without a credential, nor with one signed by another deployment's account", async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    const foreign = await nats.credentials(GATEWAY, await createNatsTrust());
    await expect(connect({ servers: nats.url, reconnect: false, ...foreign })).rejects.toThrow(
      /Authorization Violation/i,
    );
  });
});

describe("what lspmesh needs is allowed", () => {
  test("the gateway watches the registry and sees every runner", async () => {
    const kv = await new Kvm(await nats.connectAs(GATEWAY)).open("lspmesh-runners");
    const seen = new Set<string>();
    const watch = await kv.watch();
    for await (const entry of watch) {
      seen.add(entry.key);
      if (entry.delta === 0) break;
    }
    expect([...seen].sort()).toEqual([PYTHON_RUNNER, RUNNER]);
    expect((await kv.get(RUNNER))?.json()).toEqual({ id: RUNNER, address: `${RUNNER}:7421` });
  });

  test("every replica of a pool registers with the pool's one credential", async () => {
    const replica = await startAsRunner(await nats.connectAs(TYPESCRIPT), REPLICA);
    const kv = await new Kvm(await nats.connectAs(GATEWAY)).open("lspmesh-runners");
    expect((await kv.get(REPLICA))?.json()).toEqual({ id: REPLICA, address: `${REPLICA}:7421` });
    await replica.kv.delete(REPLICA);
  });

  test("a runner publishes status, clears a file's diagnostics and answers a tenant's file-change request", async () => {
    const runner = await nats.connectAs(TYPESCRIPT);
    const { js } = await startAsRunner(runner, RUNNER);
    // The tenant's CI bot follows its workspaces' status.
    const ci = await nats.connectAs(CI_ACME);
    const subscription = ci.subscribe("lspmesh.status.acme.web", { max: 1 });
    await ci.flush();
    runner.publish("lspmesh.status.acme.web", JSON.stringify({ state: "ready" }));
    for await (const message of subscription) expect(message.json()).toEqual({ state: "ready" });

    // A deleted file's diagnostics are replaced by a `deleted` message (no purge right).
    await js.publish("lspmesh.diag.acme.web.cmVtb3ZlZA", JSON.stringify({ deleted: true, diagnostics: [] }));

    runner.subscribe("lspmesh.fs.acme.web", {
      callback: (_error, message) => {
        message.respond('{"applied":1}');
      },
    });
    await runner.flush();
    const writer = await nats.connectAs(WRITER_ACME);
    const answer = await writer.request("lspmesh.fs.acme.web", '{"changes":[]}', { timeout: API_TIMEOUT_MS });
    expect(answer.json()).toEqual({ applied: 1 });
  });

  test("a tenant's CI bot reads its own diagnostics through a JetStream consumer and live", async () => {
    const ci = await nats.connectAs(CI_ACME);
    // A push consumer delivering to the bot's own inbox, replaying the last message of each of
    // its files, without the stream info (which would list every tenant's files).
    const deliverTo = createInbox(CI_INBOX);
    const replay = ci.subscribe(deliverTo, { max: 1 });
    const jsm = await jetstreamManager(ci, { timeout: API_TIMEOUT_MS, checkAPI: false });
    const consumer = await jsm.consumers.add("LSPMESH_DIAG", {
      name: `ci-acme-${Date.now()}`,
      filter_subject: "lspmesh.diag.acme.>",
      deliver_policy: DeliverPolicy.LastPerSubject,
      deliver_subject: deliverTo,
      ack_policy: AckPolicy.None,
      inactive_threshold: nanos(60_000),
    });
    for await (const message of replay) {
      expect(message.subject).toBe(ACME_FILE);
      expect(message.json()).toEqual({ tenant: "acme", diagnostics: [] });
    }
    expect((await jsm.consumers.info("LSPMESH_DIAG", consumer.name)).config.filter_subject).toBe("lspmesh.diag.acme.>");
    await jsm.consumers.delete("LSPMESH_DIAG", consumer.name);

    const live = ci.subscribe("lspmesh.diag.acme.>", { max: 1 });
    await ci.flush();
    await jetstream(await nats.connectAs(TYPESCRIPT)).publish(ACME_FILE, JSON.stringify({ tenant: "acme", n: 2 }));
    for await (const update of live) expect(update.json()).toEqual({ tenant: "acme", n: 2 });
  });
});

describe("a tenant's subscriber cannot read another tenant's subjects", () => {
  test("no live subscription outside its tenant, nor on other identities' inboxes", async () => {
    const ci = await nats.connectAs(CI_ACME);
    await expectSubscribeDenied(ci, "lspmesh.diag.globex.>");
    await expectSubscribeDenied(ci, "lspmesh.diag.>");
    await expectSubscribeDenied(ci, ">");
    await expectSubscribeDenied(ci, "lspmesh.status.globex.*");
    await expectSubscribeDenied(ci, "_INBOX.>");
    await expectSubscribeDenied(ci, "_INBOX_gateway.>");
    await expectSubscribeDenied(ci, "_INBOX_ci-globex.>");
    await expectSubscribeDenied(ci, "_INBOX_runner-typescript.>");
  });

  test("no JetStream consumer on another tenant's (or every) subject, no direct reads, no stream listing", async () => {
    const ci = await nats.connectAs(CI_ACME);
    const jsm = await jetstreamManager(ci, { timeout: API_TIMEOUT_MS, checkAPI: false });
    const consumer = (filter_subject?: string) =>
      jsm.consumers.add("LSPMESH_DIAG", {
        name: `spy-${Date.now()}`,
        ...(filter_subject ? { filter_subject } : {}),
        deliver_subject: createInbox(CI_INBOX),
        ack_policy: AckPolicy.None,
      });
    await expect(consumer("lspmesh.diag.globex.>")).rejects.toThrow(/Permissions Violation/);
    await expect(consumer("lspmesh.diag.>")).rejects.toThrow(/Permissions Violation/);
    // An unfiltered consumer would deliver every tenant's messages.
    await expect(consumer()).rejects.toThrow(/Permissions Violation/);
    // Stream info with a subject filter would list other tenants' workspaces and files.
    await expect(jsm.streams.info("LSPMESH_DIAG", { subjects_filter: ">" })).rejects.toThrow(/Permissions Violation/);
    await expect(jsm.direct.getMessage("LSPMESH_DIAG", { last_by_subj: GLOBEX_FILE })).rejects.toThrow(
      /Permissions Violation/,
    );
    await expect(jsm.consumers.list("LSPMESH_DIAG").next()).rejects.toThrow(/Permissions Violation/);
  });

  test("it writes nothing: no diagnostics, status, file events, registry entries or control plane", async () => {
    const ci = await nats.connectAs(CI_ACME);
    await expectPublishDenied(ci, ACME_FILE);
    await expectPublishDenied(ci, "lspmesh.status.acme.web");
    await expectPublishDenied(ci, "lspmesh.fs.acme.web");
    await expectPublishDenied(ci, `$KV.lspmesh-runners.${RUNNER}`);
    await expectPublishDenied(ci, "$KV.lspmesh-control.tenants.acme");
    await expectPublishDenied(ci, "$JS.API.STREAM.PURGE.LSPMESH_DIAG");
  });
});

describe("a pool credential minted for its tenants: only its own pool's keys, read and written", () => {
  test("it follows its own pool's entries and claims (handoff: its replicas), no other pool's", async () => {
    const runner = await nats.connectAs(ACME_POOL);
    const { kv } = await startAsRunner(runner, ACME_RUNNER);
    const seen: string[] = [];
    for await (const entry of await kv.watch({ key: "typescript-acme.*" })) {
      seen.push(entry.key);
      if (entry.delta === 0) break;
    }
    expect(seen).toEqual([ACME_RUNNER]);
    const claims = await new Kvm(runner).create("lspmesh-runner-claims", { history: 1 });
    await claims.put(`acme.${ACME_RUNNER}`, "{}");
    const claimed: string[] = [];
    for await (const entry of await claims.watch({ key: "*.typescript-acme.*" })) {
      claimed.push(entry.key);
      if (entry.delta === 0) break;
    }
    expect(claimed).toEqual([`acme.${ACME_RUNNER}`]);
    await claims.delete(`acme.${ACME_RUNNER}`);
    await expect(kv.watch({ key: "typescript.*" })).rejects.toThrow(/Permissions Violation/);
    await expect(claims.watch({ key: "*.typescript.*" })).rejects.toThrow(/Permissions Violation/);
  });

  test("it cannot read the registry: no get, no watch", async () => {
    const { kv } = await startAsRunner(await nats.connectAs(ACME_POOL), ACME_RUNNER);
    await expect(kv.get(RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.get(ACME_RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.watch()).rejects.toThrow(/Permissions Violation/);
    await expect(kv.keys()).rejects.toThrow(/Permissions Violation/);
  });

  test("it cannot write or delete another pool's key (its own pool's replicas share its identity)", async () => {
    const { kv } = await startAsRunner(await nats.connectAs(ACME_POOL), ACME_RUNNER);
    await expect(kv.put(RUNNER, "{}")).rejects.toThrow(/Permissions Violation/);
    await expect(kv.delete(PYTHON_RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.put("typescript-acme", "{}")).rejects.toThrow(/Permissions Violation/);
    await expect(kv.put("gateway", "{}")).rejects.toThrow(/Permissions Violation/);
    await expect(kv.put("typescript-acme.lspmesh-runner-typescript-acme-1.x", "{}")).rejects.toThrow(
      /Permissions Violation/,
    );
    const gateway = await new Kvm(await nats.connectAs(GATEWAY)).open("lspmesh-runners");
    expect((await gateway.get(PYTHON_RUNNER))?.json()).toEqual({ id: PYTHON_RUNNER, address: `${PYTHON_RUNNER}:7421` });
  });

  test("it publishes nowhere else: no file events, no other streams' APIs, no reading diagnostics", async () => {
    const runner = await nats.connectAs(ACME_POOL);
    await expectPublishDenied(runner, "lspmesh.fs.acme.web");
    await expectPublishDenied(runner, "lspmesh.elsewhere");
    await expectPublishDenied(runner, "$JS.API.STREAM.DELETE.LSPMESH_DIAG");
    // A purge's filter is in its body: allowed at all, it would reach every tenant's diagnostics.
    await expectPublishDenied(runner, "$JS.API.STREAM.PURGE.LSPMESH_DIAG");
    await expectPublishDenied(runner, "$JS.API.STREAM.DELETE.KV_lspmesh-runners");
    await expectPublishDenied(runner, "$JS.API.CONSUMER.CREATE.LSPMESH_DIAG.spy.lspmesh.diag.>");
    await expectPublishDenied(runner, "$JS.API.CONSUMER.CREATE.KV_lspmesh-runners");
    await expectPublishDenied(runner, "$KV.lspmesh-control.workspaces.acme.web");
    await expectSubscribeDenied(runner, "lspmesh.diag.>");
    await expectSubscribeDenied(runner, "lspmesh.status.>");
    await expectSubscribeDenied(runner, "_INBOX_gateway.>");
  });

  test.each([
    ["typescript-acme --tenants acme", ACME_POOL, ACME_RUNNER, ACME_FILE, GLOBEX_FILE, "globex"],
    [
      "typescript --tenants globex",
      GLOBEX_POOL,
      "typescript.lspmesh-runner-typescript-2",
      GLOBEX_FILE,
      ACME_FILE,
      "acme",
    ],
  ] as const)(
    "prod: pool %s publishes and receives only its tenants' subjects",
    async (_pool, identity, id, own, other, otherTenant) => {
      const runner = await nats.connectAs(identity);
      const { js } = await startAsRunner(runner, id);
      await js.publish(own, JSON.stringify({ n: 3 }));
      await expect(js.publish(other, "{}")).rejects.toThrow(/Permissions Violation/);
      await expectPublishDenied(runner, `lspmesh.status.${otherTenant}.ws`);
      await expectPublishDenied(runner, `$KV.lspmesh-runner-claims.${otherTenant}.${id}`);
      await expectSubscribeDenied(runner, `lspmesh.fs.${otherTenant}.ws`);
      await expectSubscribeDenied(runner, "lspmesh.fs.>");
    },
  );
});

describe("a pool credential minted for every tenant (no --tenants)", () => {
  test("it writes no control plane, no file events, no stream's settings or contents", async () => {
    const runner = await nats.connectAs(TYPESCRIPT);
    await expectPublishDenied(runner, "$KV.lspmesh-control.tenants.acme");
    await expectPublishDenied(runner, "$KV.lspmesh-control.keys.acme.agent");
    await expectPublishDenied(runner, "lspmesh.fs.acme.web");
    await expectPublishDenied(runner, "$JS.API.STREAM.DELETE.LSPMESH_DIAG");
    await expectPublishDenied(runner, "$JS.API.STREAM.PURGE.LSPMESH_DIAG");
    await expectPublishDenied(runner, "$JS.API.STREAM.UPDATE.KV_lspmesh-runners");
    await expectSubscribeDenied(runner, "lspmesh.diag.>");
    await expectSubscribeDenied(runner, "_INBOX_gateway.>");
  });

  // Known gap (packages/events natsJwt.ts): without --tenants the credential opens every
  // stream's API and every KV bucket's keys but the control plane's ("any": NATS subjects cannot
  // scope the per-tenant symbol index buckets by prefix), so it can read the registry and write
  // another pool's key. Mint shared pools' credentials with --tenants where you can
  // (docs/deploy.md). `test.fails` until the permissions close it; then make it a plain test.
  test.fails("it cannot read the registry nor write another pool's key", async () => {
    const { kv } = await startAsRunner(await nats.connectAs(TYPESCRIPT), RUNNER);
    await expect(kv.get(PYTHON_RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.put(PYTHON_RUNNER, "{}")).rejects.toThrow(/Permissions Violation/);
  });
});
