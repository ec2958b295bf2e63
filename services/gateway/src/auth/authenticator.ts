// Bearer token → Principal. API keys and JWTs side by side; or, in loopback single-machine mode,
// no tokens at all (one fixed principal).
import type { ApiKeyStore } from "./apiKeys.js";
import { type JwtVerifier, TokenRejected } from "./jwtVerifier.js";
import type { Principal } from "./principal.js";

export type AuthOutcome =
  | { ok: true; principal: Principal }
  /** invalid_token when a token was presented and refused; absent when none was presented. */
  | { ok: false; error?: "invalid_token"; description: string };

export interface Authenticator {
  /** True when callers must present a token (and the protected-resource metadata applies). */
  readonly required: boolean;
  authenticate(authorization: string | undefined): Promise<AuthOutcome>;
}

/** Single-machine mode on loopback: every caller is this principal. */
export class NoTokenAuthenticator implements Authenticator {
  readonly required = false;
  constructor(private readonly principal: Principal) {}
  async authenticate(): Promise<AuthOutcome> {
    return { ok: true, principal: this.principal };
  }
}

/** Three base64url segments: a JWS compact token. API keys are opaque strings without dots. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export class BearerAuthenticator implements Authenticator {
  readonly required = true;

  constructor(private readonly sources: { apiKeys?: ApiKeyStore | undefined; jwt?: JwtVerifier | undefined }) {
    if (!sources.apiKeys && !sources.jwt) throw new Error("token authentication needs an API keys file or a JWKS");
  }

  async authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    if (!authorization) return { ok: false, description: "send Authorization: Bearer <token>" };
    const match = /^Bearer[ ]+([\x21-\x7e]+)\s*$/i.exec(authorization);
    if (!match)
      return { ok: false, error: "invalid_token", description: "use the Bearer scheme: Authorization: Bearer <token>" };
    const token = match[1]!;
    if (JWT_SHAPE.test(token) && this.sources.jwt) {
      try {
        return { ok: true, principal: await this.sources.jwt.verify(token) };
      } catch (error) {
        if (error instanceof TokenRejected) return { ok: false, error: "invalid_token", description: error.message };
        throw error;
      }
    }
    const principal = this.sources.apiKeys?.verify(token);
    if (principal) return { ok: true, principal };
    return { ok: false, error: "invalid_token", description: "the token is not valid" };
  }
}
