import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiKeyStore, sha256Hex } from "./apiKeys.js";
import { BearerAuthenticator } from "./authenticator.js";
import { JwtVerifier } from "./jwtVerifier.js";

const ISSUER = "https://auth.example.com/";
const AUDIENCE = "https://lspmesh.example.com/mcp";

let sign: (
  claims: Record<string, unknown>,
  options?: { issuer?: string; audience?: string; exp?: string },
) => Promise<string>;
let signWithOtherKey: (claims: Record<string, unknown>) => Promise<string>;
let verifier: JwtVerifier;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const other = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
  verifier = new JwtVerifier({ jwks: createLocalJWKSet({ keys: [jwk] }), issuer: ISSUER, audience: AUDIENCE });
  const build = (claims: Record<string, unknown>, options: { issuer?: string; audience?: string; exp?: string } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setSubject("agent-7")
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? "5m");
  sign = (claims, options) => build(claims, options).sign(privateKey);
  signWithOtherKey = (claims) => build(claims).sign(other.privateKey);
});

describe("JWT verification against a JWKS", () => {
  test("a valid token maps to tenant, scopes and workspaces", async () => {
    const token = await sign({ tenant: "acme", scope: "lsp:read lsp:write openid", workspaces: ["web"] });
    await expect(verifier.verify(token)).resolves.toEqual({
      tenant: "acme",
      subject: "jwt:agent-7",
      scopes: ["lsp:read", "lsp:write"],
      workspaces: ["web"],
    });
  });

  test("scp as a list works too", async () => {
    const principal = await verifier.verify(await sign({ tenant: "acme", scp: ["lsp:read"] }));
    expect(principal.scopes).toEqual(["lsp:read"]);
  });

  test("lspmesh:admin is kept next to the tool scopes", async () => {
    const principal = await verifier.verify(await sign({ tenant: "ops", scope: "openid lspmesh:admin" }));
    expect(principal.scopes).toEqual(["lspmesh:admin"]);
  });

  test.each([
    ["another issuer", { issuer: "https://evil.example.com/" }, /another issuer or audience/],
    ["another audience", { audience: "https://other.example.com/mcp" }, /another issuer or audience/],
    ["an expired token", { exp: "-10m" }, /expired/],
  ])("%s is refused", async (_name, options, message) => {
    await expect(verifier.verify(await sign({ tenant: "acme", scope: "lsp:read" }, options))).rejects.toThrow(message);
  });

  test("a token signed by a key outside the JWKS is refused", async () => {
    await expect(verifier.verify(await signWithOtherKey({ tenant: "acme" }))).rejects.toThrow(/could not be verified/);
  });

  test("a token without a valid tenant, or with bad workspaces, is refused", async () => {
    await expect(verifier.verify(await sign({ scope: "lsp:read" }))).rejects.toThrow(/no valid tenant/);
    await expect(verifier.verify(await sign({ tenant: "../acme" }))).rejects.toThrow(/no valid tenant/);
    await expect(verifier.verify(await sign({ tenant: "acme", workspaces: "web" }))).rejects.toThrow(/workspaces/);
  });
});

describe("bearer authentication", () => {
  test("API keys and JWTs side by side; refusals say why without echoing the token", async () => {
    const auth = new BearerAuthenticator({
      apiKeys: new ApiKeyStore([{ id: "ci", sha256: sha256Hex("key-123"), tenant: "globex", scopes: ["lsp:read"] }]),
      jwt: verifier,
    });
    await expect(auth.authenticate("Bearer key-123")).resolves.toMatchObject({
      ok: true,
      principal: { tenant: "globex" },
    });
    const jwt = await sign({ tenant: "acme", scope: "lsp:read" });
    await expect(auth.authenticate(`bearer ${jwt}`)).resolves.toMatchObject({
      ok: true,
      principal: { tenant: "acme" },
    });
    await expect(auth.authenticate(undefined)).resolves.toEqual({ ok: false, description: expect.any(String) });
    const wrong = await auth.authenticate("Bearer nope");
    expect(wrong).toEqual({ ok: false, error: "invalid_token", description: "the token is not valid" });
    expect(await auth.authenticate("Basic abc")).toMatchObject({ ok: false, error: "invalid_token" });
    const forged = await auth.authenticate(`Bearer ${await signWithOtherKey({ tenant: "acme" })}`);
    expect(forged).toMatchObject({ ok: false, error: "invalid_token" });
  });
});
