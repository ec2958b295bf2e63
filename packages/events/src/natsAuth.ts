// How an lspmesh process proves who it is to NATS: user and password, a token, or a creds file
// (JWT + nkey seed), plus a CA for TLS. Each identity gets its own reply-inbox prefix
// (`_INBOX_<user>`), so the server can let it read only its own replies (natsAuthorization.ts).
import { readFileSync } from "node:fs";
import { decode, type User } from "@nats-io/jwt";
import { credsAuthenticator } from "@nats-io/transport-node";

export type NatsCredentials =
  | { kind: "password"; user: string; password: string }
  | { kind: "token"; token: string }
  | { kind: "creds"; file: string };

export interface NatsClientAuth {
  credentials?: NatsCredentials;
  /** PEM CA bundle for a TLS connection (`tls://` URLs, or a server requiring TLS). */
  caFile?: string;
}

/** The settings every lspmesh service reads (docs/operations.md). */
export const NATS_AUTH_VARIABLES = {
  user: "LSPMESH_NATS_USER",
  password: "LSPMESH_NATS_PASSWORD",
  token: "LSPMESH_NATS_TOKEN",
  creds: "LSPMESH_NATS_CREDS",
  ca: "LSPMESH_NATS_CA",
} as const;

export class NatsAuthError extends Error {
  override name = "NatsAuthError";
}

/** NATS credentials from LSPMESH_NATS_* settings. Throws NatsAuthError for an incomplete set. */
export function natsClientAuth(read: (name: string) => string | undefined): NatsClientAuth {
  const [user, password, token, creds, caFile] = [
    NATS_AUTH_VARIABLES.user,
    NATS_AUTH_VARIABLES.password,
    NATS_AUTH_VARIABLES.token,
    NATS_AUTH_VARIABLES.creds,
    NATS_AUTH_VARIABLES.ca,
  ].map(read);
  const given = [user || password ? "user" : "", token ? "token" : "", creds ? "creds" : ""].filter(Boolean);
  if (given.length > 1)
    throw new NatsAuthError(
      `give one kind of NATS credentials, not ${given.join(" and ")}: ${NATS_AUTH_VARIABLES.user} + ${NATS_AUTH_VARIABLES.password}, ${NATS_AUTH_VARIABLES.token}, or ${NATS_AUTH_VARIABLES.creds}`,
    );
  if ((user && !password) || (!user && password))
    throw new NatsAuthError(`${NATS_AUTH_VARIABLES.user} and ${NATS_AUTH_VARIABLES.password} go together`);
  const credentials: NatsCredentials | undefined =
    user && password
      ? { kind: "password", user, password }
      : token
        ? { kind: "token", token }
        : creds
          ? { kind: "creds", file: creds }
          : undefined;
  return { ...(credentials ? { credentials } : {}), ...(caFile ? { caFile } : {}) };
}

/** The reply-inbox prefix of a NATS user: its permissions allow subscribing to `<prefix>.>` only. */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}

/** Connection options carrying the credentials (spread into `connect({ servers, … })`). */
export function natsConnectOptions(auth: NatsClientAuth | undefined): {
  user?: string;
  pass?: string;
  token?: string;
  authenticator?: ReturnType<typeof credsAuthenticator>;
  inboxPrefix?: string;
  tls?: { caFile: string };
} {
  const credentials = auth?.credentials;
  const tls = auth?.caFile ? { tls: { caFile: auth.caFile } } : {};
  switch (credentials?.kind) {
    case "password":
      return {
        user: credentials.user,
        pass: credentials.password,
        inboxPrefix: inboxPrefixOf(credentials.user),
        ...tls,
      };
    case "token":
      return { token: credentials.token, ...tls };
    case "creds": {
      const file = credentials.file;
      // The JWT's user name gives the reply-inbox prefix its permissions allow (natsJwt.ts).
      const name = credsUserName(file);
      // Read at each (re)connect, so a rotated creds file applies without a restart.
      return {
        authenticator: credsAuthenticator(() => {
          try {
            return readFileSync(file);
          } catch (error) {
            throw new NatsAuthError(`cannot read the NATS creds file ${file}: ${(error as Error).message}`);
          }
        }),
        ...(name ? { inboxPrefix: inboxPrefixOf(name) } : {}),
        ...tls,
      };
    }
    default:
      return tls;
  }
}

/** The user name, public key and tags in a creds file's JWT (nothing secret is read); undefined if unreadable. */
export function natsCredsIdentity(creds: string): { name: string; publicKey: string; tags: string[] } | undefined {
  const jwt = /-----BEGIN NATS USER JWT-----\s*([A-Za-z0-9_.-]+)\s*------END NATS USER JWT------/.exec(creds)?.[1];
  if (!jwt) return undefined;
  try {
    const claims = decode<User>(jwt);
    return { name: claims.name, publicKey: claims.sub, tags: claims.nats.tags ?? [] };
  } catch {
    return undefined;
  }
}

/** The user name in a creds file's JWT when it can be an inbox token; undefined when unreadable. */
function credsUserName(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const name = natsCredsIdentity(text)?.name;
  return name && /^[A-Za-z0-9_-]+$/.test(name) ? name : undefined;
}
