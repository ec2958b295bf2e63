// JWT bearer tokens verified against a JWKS (signature, exp/nbf, issuer, audience) with `jose`.
// Claims: tenant (LSPMESH_JWT_TENANT_CLAIM, default "tenant"), scope (space-separated, RFC 9068)
// or scp (list), and an optional "workspaces" list.

import { ID_PATTERN } from "@lspmesh/proto";
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import { knownScopes, type Principal } from "./principal.js";

export interface JwtVerifierOptions {
  /** Key source: a JWKS URL (fetched and cached by jose) or a key-lookup function (tests: createLocalJWKSet). */
  jwks: URL | JWTVerifyGetKey;
  issuer: string;
  audience: string;
  tenantClaim?: string;
  /** Clock skew tolerated on exp/nbf, in seconds (default 30). */
  clockToleranceSec?: number;
}

/** Why a token was refused, for the 401's error_description (never echoes the token). */
export class TokenRejected extends Error {}

export class JwtVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(private readonly options: JwtVerifierOptions) {
    this.keys = options.jwks instanceof URL ? createRemoteJWKSet(options.jwks) : options.jwks;
  }

  async verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTolerance: this.options.clockToleranceSec ?? 30,
      }));
    } catch (error) {
      const code = (error as { code?: string }).code ?? "";
      throw new TokenRejected(
        code === "ERR_JWT_EXPIRED"
          ? "the token has expired"
          : code === "ERR_JWT_CLAIM_VALIDATION_FAILED"
            ? "the token was issued for another issuer or audience"
            : "the token could not be verified",
      );
    }
    const tenant = payload[this.options.tenantClaim ?? "tenant"];
    if (typeof tenant !== "string" || !ID_PATTERN.test(tenant))
      throw new TokenRejected("the token names no valid tenant");
    const rawScopes =
      typeof payload.scope === "string"
        ? payload.scope.split(" ")
        : Array.isArray(payload.scp)
          ? payload.scp.map(String)
          : typeof payload.scp === "string"
            ? payload.scp.split(" ")
            : [];
    const workspaces = payload.workspaces;
    if (
      workspaces !== undefined &&
      (!Array.isArray(workspaces) || !workspaces.every((w) => typeof w === "string" && ID_PATTERN.test(w)))
    )
      throw new TokenRejected("the token's workspaces claim is not a list of workspace ids");
    return {
      tenant,
      subject: `jwt:${payload.sub ?? "unknown"}`,
      scopes: knownScopes(rawScopes),
      workspaces: workspaces as string[] | undefined,
    };
  }
}
