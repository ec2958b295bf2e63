// NATS with the authorization lspmesh ships: a real runner process publishing diagnostics for two
// tenants and registering itself, then clients probing what each identity can reach. A client
// without credentials cannot connect at all; a tenant reads only its own diagnostics; nobody but a
// runner writes a registry entry, and a runner only its own.

import { once } from "node:events";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DIAGNOSTICS_STREAM,
  DiagnosticsConsumer,
  type DiagnosticsMessage,
  decodeJson,
  diagnosticsWildcard,
  encodeJson,
  epochSubject,
  epochWildcard,
  fileEventsSubject,
  NATS_USERS,
  RUNNER_CLAIMS_BUCKET,
  RUNNER_REGISTRY_BUCKET,
  runnerClaimKey,
  symbolIndexBucket,
  symbolIndexStream,
} from "@lspmesh/events";
import {
  clusterRunnerClient,
  fixturePath,
  type GatewayProcess,
  type NatsServer,
  needs,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

let root: string;
let nats: NatsServer;
let runner: RunnerProcess;
const connections: NatsConnection[] = [];

async function as(user: string): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.url, ...nats.connectOptions(user), timeout: 5_000 });
  connections.push(nc);
  return nc;
}

/** The latest diagnostics of a tenant's files as that identity may read them (ordered consumer). */
async function readDiagnostics(nc: NatsConnection, tenant: string): Promise<DiagnosticsMessage[]> {
  const consumer = await DiagnosticsConsumer.open(nc, {
    filter: diagnosticsWildcard(tenant),
    start: "latest-per-file",
  });
  const out: DiagnosticsMessage[] = [];
  try {
    if (consumer.pendingAtStart === 0) return out;
    for await (const message of consumer) {
      out.push(decodeJson<DiagnosticsMessage>(message.data));
      if (message.info.pending === 0) break;
    }
  } finally {
    await consumer.close();
  }
  return out;
}

beforeAll(async () => {
  // Every identity declared up front: no configuration reload while the tests run.
  nats = await startNatsServer({
    secured: { tenants: ["acme", "globex"], runners: [{ id: "r1" }, { id: "acme-only", tenants: ["acme"] }] },
  });
});

afterAll(async () => {
  for (const nc of connections) await nc.close().catch(() => {});
  await nats?.close();
});

describe("without credentials", () => {
  test("a client cannot connect, so it can neither read the stream nor write the registry or diagnostics", async () => {
    await expect(connect({ servers: nats.url, timeout: 5_000, reconnect: false })).rejects.toThrow(/authoriz/i);
    await expect(
      connect({
        servers: nats.url,
        user: NATS_USERS.gateway,
        pass: "wrong-password",
        timeout: 5_000,
        reconnect: false,
      }),
    ).rejects.toThrow(/authoriz/i);
  });
});

// A runner holding both tenants' sessions at once runs their language servers sandboxed (the
// default where bubblewrap works); without it, it would serve one tenant at a time.
describe.skipIf(!needs("bubblewrap", "natsPermissions (a runner serving two tenants)"))("with a runner", () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "lspmesh-nats-permissions-"));
    const workspaces = join(root, "workspaces");
    for (const [tenant, workspace] of [
      ["acme", "web"],
      ["globex", "shop"],
    ] as const) {
      mkdirSync(join(workspaces, tenant), { recursive: true });
      cpSync(fixturePath("typescript-basic"), join(workspaces, tenant, workspace), { recursive: true });
      writeFileSync(
        join(workspaces, tenant, workspace, "src/canary.ts"),
        `export const canary: number = "${tenant.toUpperCase()}-CANARY";\n`,
      );
    }
    runner = await startRunnerProcess(workspaces, nats, "r1");
    // Diagnostics for both tenants' canary files reach the stream.
    const client = clusterRunnerClient(runner.address);
    try {
      for (const [tenant, workspace] of [
        ["acme", "web"],
        ["globex", "shop"],
      ] as const) {
        await client.diagnostics(
          { workspace: { tenant, workspace }, files: ["src/canary.ts"], waitMs: 20_000 },
          { timeoutMs: 60_000 },
        );
      }
    } finally {
      client.close();
    }
    const admin = await as(NATS_USERS.admin);
    await waitFor("both tenants' diagnostics on the stream", async () => {
      const info = await (await jetstreamManager(admin)).streams.info(DIAGNOSTICS_STREAM, { subjects_filter: ">" });
      const subjects = Object.keys(info.state.subjects ?? {});
      return (
        subjects.some((s) => s.startsWith("lspmesh.diag.acme.")) &&
        subjects.some((s) => s.startsWith("lspmesh.diag.globex."))
      );
    });
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  describe("a tenant's subscriber identity", () => {
    test("reads its own tenant's diagnostics (positive control)", async () => {
      const acme = await as(NATS_USERS.ci("acme"));
      const messages = await readDiagnostics(acme, "acme");
      expect(messages.map((message) => message.tenant)).toContain("acme");
      expect(JSON.stringify(messages)).toContain("canary.ts");
      expect(JSON.stringify(messages)).not.toContain("globex");
    });

    test("cannot read another tenant's diagnostics, the unfiltered stream, or its subject list", async () => {
      const acme = await as(NATS_USERS.ci("acme"));
      await expect(readDiagnostics(acme, "globex")).rejects.toThrow(/permission/i);
      await expect(
        jetstream(acme)
          .consumers.get(DIAGNOSTICS_STREAM, { deliver_policy: DeliverPolicy.LastPerSubject })
          .then((c) => c.info()),
      ).rejects.toThrow(/permission/i);
      await expect(
        (await jetstreamManager(acme)).streams.info(DIAGNOSTICS_STREAM, { subjects_filter: ">" }),
      ).rejects.toThrow(/permission/i);
      // A plain subscription to another tenant's live subjects is refused by the server too.
      const violations: string[] = [];
      const watcher = await as(NATS_USERS.ci("acme"));
      void (async () => {
        for await (const status of watcher.status()) if (status.type === "error") violations.push(String(status.error));
      })();
      const sub = watcher.subscribe(diagnosticsWildcard("globex"));
      await watcher.flush();
      await waitFor("a permissions violation", () => violations.some((v) => /permission/i.test(v)));
      sub.unsubscribe();
    });

    test("cannot publish forged diagnostics, not even for itself, nor write the registry", async () => {
      const acme = await as(NATS_USERS.ci("acme"));
      const forged = encodeJson({ tenant: "acme", workspace: "web", file: "src/forged.ts", diagnostics: [] });
      await expect(jetstream(acme, { timeout: 3_000 }).publish("lspmesh.diag.acme.web.forged", forged)).rejects.toThrow(
        /permission/i,
      );
      await expect(
        acme.request(`$KV.${RUNNER_REGISTRY_BUCKET}.evil`, encodeJson({ id: "evil", address: "6.6.6.6:1" }), {
          timeout: 3_000,
        }),
      ).rejects.toThrow(/permission/i);
    });
  });

  describe("a tenant's writer identity", () => {
    test("announces file changes for its own tenant and hears the runner's answer, never for another tenant", async () => {
      const writer = await as(NATS_USERS.writer("acme"));
      const announce = (tenant: string, workspace: string) =>
        writer.request(
          fileEventsSubject(tenant, workspace),
          encodeJson({ v: 1, changes: [{ file: "src/canary.ts", kind: "changed" }] }),
          { timeout: 10_000 },
        );
      // The runner watches a workspace once it has a session there (the beforeAll's diagnostics).
      // Each try waits up to 10 s for the answer.
      const answer = await waitFor(
        "the runner's answer",
        async () => (await announce("acme", "web")).json<Record<string, unknown>>(),
        { timeoutMs: 30_000 },
      );
      expect(answer).toBeTypeOf("object");
      await expect(announce("globex", "shop")).rejects.toThrow(/permission/i);
      // It reads nothing: not even its own tenant's diagnostics.
      await expect(readDiagnostics(writer, "acme")).rejects.toThrow(/permission/i);
    });

    test("cannot make the runner write for it: a reply subject naming another runner's registry key is never answered into", async () => {
      const admin = await as(NATS_USERS.admin);
      const registry = await new Kvm(admin).open(RUNNER_REGISTRY_BUCKET);
      // Another runner's key (a decoy, not live: no updatedAt), removed again at the end.
      const key = "decoy-runner";
      const revision = await registry.put(key, encodeJson({ id: key, address: "10.0.0.2:7421", canary: "untouched" }));
      const writer = await as(NATS_USERS.writer("acme"));
      const payload = encodeJson({ v: 1, changes: [{ file: "src/canary.ts", kind: "changed" }] });
      writer.publish(fileEventsSubject("acme", "web"), payload, { reply: `$KV.${RUNNER_REGISTRY_BUCKET}.${key}` });
      // Announcements are handled one at a time in arrival order: once this one is answered, the
      // forged one was handled too.
      await writer.request(fileEventsSubject("acme", "web"), payload, { timeout: 10_000 });
      const entry = await registry.get(key);
      await registry.purge(key);
      expect(entry?.revision).toBe(revision);
      expect(entry?.json<{ canary?: string }>().canary).toBe("untouched");
    });
  });

  describe("service identities", () => {
    test("the gateway reads the registry but cannot write it", async () => {
      const gateway = await as(NATS_USERS.gateway);
      const kv = await new Kvm(gateway).open(RUNNER_REGISTRY_BUCKET);
      await waitFor("r1 registered", async () => (await kv.get("r1"))?.json<{ id: string }>().id === "r1");
      await expect(kv.put("evil", encodeJson({ id: "evil", address: "6.6.6.6:1" }))).rejects.toThrow(/permission/i);
    });

    test("a runner identity cannot read the diagnostics stream's state or subjects, change it, nor reach another tenant's index", async () => {
      // A runner dedicated to acme (its identity issued for acme only).
      const runnerNc = await as(NATS_USERS.runner("acme-only"));
      const jsm = await jetstreamManager(runnerNc, { timeout: 5_000 });
      await expect(jsm.streams.info(DIAGNOSTICS_STREAM, { subjects_filter: ">" })).rejects.toThrow(/permission/i);
      await expect(
        jsm.streams.update(DIAGNOSTICS_STREAM, { subjects: ["lspmesh.diag.>"], max_msgs_per_subject: 1, max_age: 1 }),
      ).rejects.toThrow(/permission/i);
      // Nor purge it: not the whole stream, not another tenant's subjects.
      await expect(jsm.streams.purge(DIAGNOSTICS_STREAM)).rejects.toThrow(/permission/i);
      await expect(jsm.streams.purge(DIAGNOSTICS_STREAM, { filter: diagnosticsWildcard("globex") })).rejects.toThrow(
        /permission/i,
      );
      // Another tenant's symbol index: neither read, listed, written nor purged.
      const globexIndex = await new Kvm(runnerNc).open(symbolIndexBucket("globex"), { bindOnly: true });
      await expect(globexIndex.put("planted", encodeJson({}))).rejects.toThrow(/permission/i);
      await expect(globexIndex.get("planted")).rejects.toThrow(/permission/i);
      await expect(jsm.streams.info(symbolIndexStream("globex"))).rejects.toThrow(/permission/i);
      await expect(jsm.streams.purge(symbolIndexStream("globex"))).rejects.toThrow(/permission/i);
      await expect(jsm.streams.list().next()).rejects.toThrow(/permission/i);
      // Its own tenant's index it may open (positive control).
      await expect(new Kvm(runnerNc).open(symbolIndexBucket("acme"))).resolves.toBeDefined();
      // The stream is as the runner left it (the admin sees its settings unchanged).
      const admin = await jetstreamManager(await as(NATS_USERS.admin));
      const info = await admin.streams.info(DIAGNOSTICS_STREAM);
      expect(info.config.max_age).toBe(0);
    });

    test("epochs: a runner announces only for its tenants, the gateway hears them, a tenant's identities do not", async () => {
      const gateway = await as(NATS_USERS.gateway);
      const heard: string[] = [];
      gateway.subscribe(epochWildcard(), {
        callback: (_error, message) => {
          heard.push(message.subject);
        },
      });
      await gateway.flush();
      const runnerNc = await as(NATS_USERS.runner("acme-only"));
      const violations: string[] = [];
      void (async () => {
        for await (const status of runnerNc.status())
          if (status.type === "error") violations.push(String(status.error));
      })();
      runnerNc.publish(epochSubject("acme", "web"), encodeJson({ v: 1, tenant: "acme", workspace: "web" }));
      runnerNc.publish(epochSubject("globex", "shop"), encodeJson({ v: 1, tenant: "globex", workspace: "shop" }));
      await runnerNc.flush();
      await waitFor("the gateway heard acme's epoch", () => heard.includes(epochSubject("acme", "web")));
      await waitFor("a permissions violation", () => violations.some((v) => /permission/i.test(v)));
      await gateway.flush();
      expect(heard).not.toContain(epochSubject("globex", "shop"));
      // A tenant's identities can neither forge an epoch nor hear one.
      const writerViolations: string[] = [];
      const writer = await as(NATS_USERS.writer("acme"));
      void (async () => {
        for await (const status of writer.status())
          if (status.type === "error") writerViolations.push(String(status.error));
      })();
      writer.publish(epochSubject("acme", "web"), encodeJson({ v: 1, tenant: "acme", workspace: "web" }));
      writer.subscribe(epochWildcard("acme"));
      await writer.flush();
      await waitFor("the writer refused", () => writerViolations.filter((v) => /permission/i.test(v)).length >= 2);
    });

    test("a runner writes only its own registry key", async () => {
      const r1 = await as(NATS_USERS.runner("r1"));
      const kv = await new Kvm(r1).open(RUNNER_REGISTRY_BUCKET);
      await expect(kv.put("r2", encodeJson({ id: "r2", address: "6.6.6.6:1" }))).rejects.toThrow(/permission/i);
      const admin = await as(NATS_USERS.admin);
      expect(await (await new Kvm(admin).open(RUNNER_REGISTRY_BUCKET)).get("r2")).toBeNull();
    });
  });
});

// The tenants a registry entry lists are the writer's word; the claims (KV lspmesh-runner-claims,
// one key per tenant) are what NATS let its identity write. A gateway routes by the claims.
describe("a runner's claims", () => {
  let dir: string;
  let gateway: GatewayProcess;
  let trap: Server;
  let tokens: Record<"acme-agent" | "globex-agent", string>;
  const dialed: number[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lspmesh-nats-claims-"));
    // Where the forged entry points: every connection the gateway makes to it is counted.
    trap = createServer((socket) => {
      dialed.push(Date.now());
      socket.destroy();
    });
    trap.listen(0, "127.0.0.1");
    await once(trap, "listening");
    const tenancy = writeTenancyFiles(dir, {
      tenants: { acme: { workspaces: ["web"] }, globex: { workspaces: ["shop"] } },
      keys: { "acme-agent": { tenant: "acme" }, "globex-agent": { tenant: "globex" } },
    });
    gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy });
    tokens = tenancy.tokens;
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    trap?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function hover(token: string, workspace: string) {
    const client = new Client({ name: "claims", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = (await client.callTool(
        { name: "hover", arguments: { workspace, file: "src/main.ts", line: 1, column: 1 } },
        { timeout: 30_000 },
      )) as { isError?: boolean; content: Array<{ text?: string }> };
      return { isError: result.isError === true, text: result.content.map((part) => part.text ?? "").join("") };
    } finally {
      await client.close();
    }
  }

  test("an entry listing a tenant its identity was not issued is never routed that tenant", async () => {
    // A runner identity issued for acme only.
    const forger = new Kvm(await as(NATS_USERS.runner("acme-only")));
    const claims = await forger.open(RUNNER_CLAIMS_BUCKET, { bindOnly: true });
    await expect(claims.put(runnerClaimKey("globex", "acme-only"), encodeJson({}))).rejects.toThrow(/permission/i);
    await expect(claims.put(runnerClaimKey(undefined, "acme-only"), encodeJson({}))).rejects.toThrow(/permission/i);
    await claims.put(runnerClaimKey("acme", "acme-only"), encodeJson({ v: 1, runner: "acme-only" }));
    // Its registry entry lists globex anyway, and names the trap as its address.
    const { port } = trap.address() as { port: number };
    const registry = await forger.open(RUNNER_REGISTRY_BUCKET, { bindOnly: true });
    await registry.put(
      "acme-only",
      encodeJson({
        v: 1,
        id: "acme-only",
        address: `127.0.0.1:${port}`,
        languages: ["typescript"],
        extensions: { typescript: [".ts"] },
        tenants: ["acme", "globex"],
        pool: "typescript",
        load: 0,
        updatedAt: Date.now(),
        heartbeatMs: 60_000,
      }),
    );
    await waitFor("the entry live", async () => (await gateway.liveRunners()) === 1);

    const globex = await hover(tokens["globex-agent"], "shop");
    expect(globex.isError).toBe(true);
    expect(globex.text).toMatch(/NO_LANGUAGE_SERVER|UNAVAILABLE/);
    expect(dialed).toEqual([]);
    // Positive control: acme, whose claim it holds, is routed to it (and meets the trap).
    const acme = await hover(tokens["acme-agent"], "web");
    expect(acme.isError).toBe(true);
    await waitFor("the gateway dialed the entry for acme", () => dialed.length > 0);
    await registry.delete("acme-only");
  });
});
