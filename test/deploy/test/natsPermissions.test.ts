// The shipped NATS authorization (deploy/nats/authorization.conf) on a real nats-server: every
// identity can do what lspmesh needs, and nothing more. A runner cannot read the registry or
// write another runner's key, nor publish outside its pool's subjects; a tenant's CI bot reads
// only lspmesh.diag.<tenant>.>, live or through JetStream, and sees no other tenant's subjects,
// consumers or replies.

import { inboxPrefixOf } from "@lspmesh/events";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { createInbox, type NatsConnection, nanos } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { repoPath } from "../src/repo.js";
import { type ShippedNats, startShippedNats } from "../src/shippedNats.js";

const RUNNER = "lspmesh-runner-typescript-0";
const OTHER_RUNNER = "lspmesh-runner-typescript-1";
const ACME_RUNNER = "lspmesh-runner-typescript-acme-0";
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
  // Two runners registered, and diagnostics stored for two tenants.
  const runner = await startAsRunner(await nats.connectAs(RUNNER), RUNNER);
  await startAsRunner(await nats.connectAs(OTHER_RUNNER), OTHER_RUNNER);
  await runner.js.publish(ACME_FILE, JSON.stringify({ tenant: "acme", diagnostics: [] }));
  await runner.js.publish(GLOBEX_FILE, JSON.stringify({ tenant: "globex", diagnostics: [] }));
});

afterAll(async () => {
  await nats?.close();
});

describe("what lspmesh needs is allowed", () => {
  test("the gateway watches the registry and sees every runner", async () => {
    const kv = await new Kvm(await nats.connectAs("gateway")).open("lspmesh-runners");
    const seen = new Set<string>();
    const watch = await kv.watch();
    for await (const entry of watch) {
      seen.add(entry.key);
      if (entry.delta === 0) break;
    }
    expect([...seen].sort()).toEqual([RUNNER, OTHER_RUNNER]);
    expect((await kv.get(RUNNER))?.json()).toEqual({ id: RUNNER, address: `${RUNNER}:7421` });
  });

  test("a runner publishes status, clears a file's diagnostics and answers a tenant's file-change request", async () => {
    const runner = await nats.connectAs(RUNNER);
    const { js } = await startAsRunner(runner, RUNNER);
    // The tenant's CI bot follows its workspaces' status.
    const ci = await nats.connectAs("ci-acme");
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
    const writer = await nats.connectAs("writer-acme");
    const answer = await writer.request("lspmesh.fs.acme.web", '{"changes":[]}', { timeout: API_TIMEOUT_MS });
    expect(answer.json()).toEqual({ applied: 1 });
  });

  test("a tenant's CI bot reads its own diagnostics through a JetStream consumer and live", async () => {
    const ci = await nats.connectAs("ci-acme");
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
    await jetstream(await nats.connectAs(RUNNER)).publish(ACME_FILE, JSON.stringify({ tenant: "acme", n: 2 }));
    for await (const update of live) expect(update.json()).toEqual({ tenant: "acme", n: 2 });
  });
});

describe("a tenant's subscriber cannot read another tenant's subjects", () => {
  test("no live subscription outside its tenant, nor on other identities' inboxes", async () => {
    const ci = await nats.connectAs("ci-acme");
    await expectSubscribeDenied(ci, "lspmesh.diag.globex.>");
    await expectSubscribeDenied(ci, "lspmesh.diag.>");
    await expectSubscribeDenied(ci, ">");
    await expectSubscribeDenied(ci, "lspmesh.status.globex.*");
    await expectSubscribeDenied(ci, "_INBOX.>");
    await expectSubscribeDenied(ci, "_INBOX_gateway.>");
    await expectSubscribeDenied(ci, "_INBOX_ci-globex.>");
  });

  test("no JetStream consumer on another tenant's (or every) subject, no direct reads, no stream listing", async () => {
    const ci = await nats.connectAs("ci-acme");
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

  test("it writes nothing: no diagnostics, status, file events or registry entries", async () => {
    const ci = await nats.connectAs("ci-acme");
    await expectPublishDenied(ci, ACME_FILE);
    await expectPublishDenied(ci, "lspmesh.status.acme.web");
    await expectPublishDenied(ci, "lspmesh.fs.acme.web");
    await expectPublishDenied(ci, `$KV.lspmesh-runners.${RUNNER}`);
    await expectPublishDenied(ci, "$JS.API.STREAM.PURGE.LSPMESH_DIAG");
  });
});

describe("a runner reads no registry entry and writes only its own subjects", () => {
  test("it cannot read the registry: no get, no watch", async () => {
    const runner = await nats.connectAs(RUNNER);
    const { kv } = await startAsRunner(runner, RUNNER);
    await expect(kv.get(OTHER_RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.get(RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.watch()).rejects.toThrow(/Permissions Violation/);
    await expect(kv.keys()).rejects.toThrow(/Permissions Violation/);
  });

  test("it cannot write or delete another runner's key", async () => {
    const runner = await nats.connectAs(RUNNER);
    const { kv } = await startAsRunner(runner, RUNNER);
    await expect(kv.put(OTHER_RUNNER, "{}")).rejects.toThrow(/Permissions Violation/);
    await expect(kv.delete(OTHER_RUNNER)).rejects.toThrow(/Permissions Violation/);
    await expect(kv.put("gateway", "{}")).rejects.toThrow(/Permissions Violation/);
    const gateway = await new Kvm(await nats.connectAs("gateway")).open("lspmesh-runners");
    expect((await gateway.get(OTHER_RUNNER))?.json()).toEqual({ id: OTHER_RUNNER, address: `${OTHER_RUNNER}:7421` });
  });

  test("it publishes nowhere else: no file events, no other streams' APIs, no reading diagnostics", async () => {
    const runner = await nats.connectAs(RUNNER);
    await expectPublishDenied(runner, "lspmesh.fs.acme.web");
    await expectPublishDenied(runner, "lspmesh.elsewhere");
    await expectPublishDenied(runner, "$JS.API.STREAM.DELETE.LSPMESH_DIAG");
    // A purge's filter is in its body: allowed at all, it would reach every tenant's diagnostics.
    await expectPublishDenied(runner, "$JS.API.STREAM.PURGE.LSPMESH_DIAG");
    await expectPublishDenied(runner, "$JS.API.STREAM.DELETE.KV_lspmesh-runners");
    await expectPublishDenied(runner, "$JS.API.CONSUMER.CREATE.LSPMESH_DIAG.spy.lspmesh.diag.>");
    await expectPublishDenied(runner, "$JS.API.CONSUMER.CREATE.KV_lspmesh-runners");
    await expectSubscribeDenied(runner, "lspmesh.diag.>");
    await expectSubscribeDenied(runner, "lspmesh.status.>");
    await expectSubscribeDenied(runner, "_INBOX_gateway.>");
  });
});

describe("prod: a tenant's dedicated pool and the shared pools confined to the other tenants", () => {
  let prod: ShippedNats;
  beforeAll(async () => {
    prod = await startShippedNats(repoPath("deploy/kustomize/overlays/prod/authorization.conf"));
  });
  afterAll(async () => {
    await prod?.close();
  });

  test.each([
    [ACME_RUNNER, ACME_FILE, GLOBEX_FILE, "globex"],
    [RUNNER, GLOBEX_FILE, ACME_FILE, "acme"],
  ])("%s publishes and receives only its pool's tenants' subjects", async (id, own, other, otherTenant) => {
    const runner = await prod.connectAs(id);
    const { js } = await startAsRunner(runner, id);
    await js.publish(own, JSON.stringify({ n: 3 }));
    await expect(js.publish(other, "{}")).rejects.toThrow(/Permissions Violation/);
    await expectPublishDenied(runner, `lspmesh.status.${otherTenant}.ws`);
    await expectSubscribeDenied(runner, `lspmesh.fs.${otherTenant}.ws`);
    await expectSubscribeDenied(runner, "lspmesh.fs.>");
  });
});
