// Every answer the front door refuses an /mcp request with, written in this one place: the bearer
// challenges (RFC 6750 with the RFC 9728 metadata URL), 429 with Retry-After, 413, and the
// JSON-RPC 403 of the Host and Origin checks.
import type { ServerResponse } from "node:http";
import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode } from "@modelcontextprotocol/server";
import { challengeScopes } from "../auth/scopeDecision.js";
import type { InsufficientScope } from "../mcp/serving/admittedRequest.js";

export type HttpRefusal =
  /** Host or Origin not allowed (DNS rebinding, cross-site pages). */
  | { readonly kind: "forbidden"; readonly message: string }
  /** No credentials at all. */
  | { readonly kind: "missing_token"; readonly description: string }
  /** Credentials presented and refused. */
  | { readonly kind: "invalid_token"; readonly description: string }
  | InsufficientScope
  /** Over a request limit; `what` names what was counted ("requests"). */
  | { readonly kind: "rate_limited"; readonly retryAfterMs: number; readonly what: string }
  | { readonly kind: "body_too_large" }
  /** JSON nested deeper than the gateway reads (its checks recurse through the body). */
  | { readonly kind: "too_deep"; readonly limit: number };

type BearerRefusal = Extract<HttpRefusal, { kind: "missing_token" | "invalid_token" | "insufficient_scope" }>;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Answers `refusal` on `res`; `resourceMetadataUrl` is asked for only by a bearer challenge. */
export async function writeRefusal(
  res: ServerResponse,
  refusal: HttpRefusal,
  resourceMetadataUrl: () => string,
): Promise<void> {
  const answer = await answerTo(refusal, resourceMetadataUrl);
  res.writeHead(answer.status, answer.headers).end(answer.body);
}

function answerTo(refusal: HttpRefusal, resourceMetadataUrl: () => string): Answer | Promise<Answer> {
  switch (refusal.kind) {
    case "forbidden":
      return json(403, { jsonrpc: "2.0", error: { code: -32_000, message: refusal.message }, id: null });
    case "missing_token":
    case "invalid_token":
    case "insufficient_scope":
      return bearerChallenge(refusal, resourceMetadataUrl());
    case "rate_limited":
      return tooManyRequests(refusal.retryAfterMs, refusal.what);
    case "body_too_large":
      return { status: 413, headers: { "content-type": "text/plain; charset=utf-8" }, body: "request body too large" };
    case "too_deep":
      return json(400, {
        jsonrpc: "2.0",
        error: { code: -32_700, message: `Parse error: the JSON nests deeper than ${refusal.limit} levels` },
        id: null,
      });
  }
}

/** 401 without a token or with a bad one, 403 for a missing scope; never cached. */
async function bearerChallenge(refusal: BearerRefusal, resourceMetadataUrl: string): Promise<Answer> {
  if (refusal.kind === "missing_token") {
    // RFC 6750 (3.1) wants no error code without credentials, which the SDK's challenge always adds.
    const description = refusal.description;
    const challenge = `Bearer resource_metadata="${resourceMetadataUrl}", error_description="${description.replaceAll('"', "'")}"`;
    return {
      status: 401,
      headers: { "content-type": "application/json", "www-authenticate": challenge, "cache-control": "no-store" },
      body: JSON.stringify({ error: "unauthorized", error_description: description }),
    };
  }
  const [error, requiredScopes] =
    refusal.kind === "invalid_token"
      ? [new OAuthError(OAuthErrorCode.InvalidToken, refusal.description), undefined]
      : [
          new OAuthError(OAuthErrorCode.InsufficientScope, `this token lacks the ${refusal.missing} scope`),
          challengeScopes(refusal.missing),
        ];
  const answer = bearerAuthChallengeResponse(error, { requiredScopes, resourceMetadataUrl });
  return {
    status: answer.status,
    headers: { ...Object.fromEntries(answer.headers), "cache-control": "no-store" },
    body: await answer.text(),
  };
}

/** 429 with Retry-After in whole seconds, at least one. */
function tooManyRequests(retryAfterMs: number, what: string): Answer {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": String(seconds) },
    body: JSON.stringify({ error: "rate_limited", error_description: `too many ${what}; retry after ${seconds} s` }),
  };
}

function json(status: number, body: unknown): Answer {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}
