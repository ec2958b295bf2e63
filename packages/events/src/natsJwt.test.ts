import { decode, type User } from "@nats-io/jwt";
import { describe, expect, test } from "vitest";
import { natsCredsIdentity } from "./natsAuth.js";
import {
  createNatsTrust,
  mintNatsUser,
  natsAccountId,
  natsJwtPermissions,
  natsJwtServerConfig,
  revokeNatsUsers,
} from "./natsJwt.js";

const userJwt = (creds: string) => /-----BEGIN NATS USER JWT-----\s*(\S+)/.exec(creds)![1]!;

describe("decentralized NATS credentials", () => {
  test("a minted CI credential carries its tenant's permissions only, signed by the LSPMESH account", async () => {
    const trust = await createNatsTrust();
    const minted = await mintNatsUser(trust, { kind: "ci", tenant: "acme" }, { expiresInSeconds: 3600 });
    const claims = decode<User>(userJwt(minted.creds));
    expect(claims.iss).toBe(natsAccountId(trust));
    expect(claims.name).toBe("ci-acme");
    expect(claims.sub).toBe(minted.publicKey);
    expect(claims.exp).toBe(minted.issuedAt + 3600);
    expect(claims.nats.sub?.allow).toEqual(["_INBOX_ci-acme.>", "lspmesh.status.acme.*", "lspmesh.diag.acme.>"]);
    expect(claims.nats.pub?.allow).toContain("$JS.API.CONSUMER.CREATE.LSPMESH_DIAG.*.lspmesh.diag.acme.>");
    expect(JSON.stringify(claims.nats)).not.toMatch(/globex|lspmesh\.diag\.>/);
    expect(natsCredsIdentity(minted.creds)).toEqual({
      name: "ci-acme",
      publicKey: minted.publicKey,
      tags: ["lspmesh:ci", "tenant:acme"],
    });
  });

  test("a runner pool's credential writes only its pool's registry keys and claims, for its tenants", () => {
    const { pub, sub, resp } = natsJwtPermissions({ kind: "runner", pool: "typescript", tenants: ["acme"] });
    expect(pub?.allow).toContain("$KV.lspmesh-runners.typescript.*");
    expect(pub?.allow).toContain("$KV.lspmesh-runner-claims.acme.typescript.*");
    expect(pub?.allow).toContain("$KV.lspmesh-symbols-acme.>");
    expect(pub?.allow?.some((subject) => subject.includes("globex") || subject === "$KV.*.>")).toBe(false);
    expect(sub?.allow).toEqual(["_INBOX_runner-typescript.>", "lspmesh.fs.acme.*"]);
    expect(resp).toEqual({ max: 1, ttl: 0 });
    // Minted before the tenants are known: every bucket's keys, never the control plane's.
    const shared = natsJwtPermissions({ kind: "runner", pool: "shared" });
    expect(shared.pub?.allow).toContain("$KV.*.>");
    expect(shared.pub?.deny).toEqual(["$KV.lspmesh-control.>"]);
  });

  test("the gateway reads every bucket and writes only workspaces' last uses", () => {
    const { pub } = natsJwtPermissions({ kind: "gateway" });
    expect(pub?.allow?.filter((subject) => subject.startsWith("$KV."))).toEqual(["$KV.lspmesh-usage.>"]);
    expect(pub?.allow).toContain("$JS.API.DIRECT.GET.*.>");
  });

  test("a revocation re-signs the account with the key revoked and keeps earlier revocations", async () => {
    const trust = await createNatsTrust();
    const first = await revokeNatsUsers(trust, trust.account.jwt, ["UAAA"], 100);
    const second = await revokeNatsUsers(trust, first, ["UBBB"], 200);
    const claims = decode<{ revocations?: Record<string, number>; limits?: { conn?: number } }>(second);
    expect(claims.nats.revocations).toEqual({ UAAA: 100, UBBB: 200 });
    expect(claims.nats.limits?.conn).toBe(-1);
    expect(claims.sub).toBe(natsAccountId(trust));
    const other = await createNatsTrust();
    await expect(revokeNatsUsers(other, second, ["UCCC"])).rejects.toThrow(/not the LSPMESH account/);
  });

  test("the server configuration names the operator and two accounts, whatever the number of credentials", async () => {
    const trust = await createNatsTrust();
    const config = natsJwtServerConfig(trust, "/data/jwt");
    expect(config).toContain(`operator: ${trust.operator.jwt}`);
    expect(config).toContain('dir: "/data/jwt"');
    expect(config).toContain(`${natsAccountId(trust)}: ${trust.account.jwt}`);
    for (let i = 0; i < 5; i++) await mintNatsUser(trust, { kind: "ci", tenant: `t${i}` });
    expect(natsJwtServerConfig(trust, "/data/jwt")).toBe(config);
  });
});
