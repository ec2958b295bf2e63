// How gateways and runners authenticate each other on gRPC: mutual TLS (certificates from files,
// reloaded when they change), a secret sent as `authorization: Bearer …` on every call (read from
// a file, re-read when it changes), or both. A runner refuses every call of the lspmesh.v1.Runner
// service that does not pass; the standard health service stays open (it says only SERVING /
// NOT_SERVING) so kubelet gRPC probes work without credentials.
//
// One identity per runner, so that a credential stolen from one runner opens no other:
// - per-runner secrets: the gateways hold a key and send each runner HMAC(key, runner id)
//   (deriveRunnerSecret); a runner holds only its own derived secret;
// - mTLS: each runner its own certificate, and runners accept only client certificates that name
//   a gateway (clientNames), so a runner's certificate cannot call another runner.
import { createHmac, hash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import type { PeerCertificate } from "node:tls";
import * as grpc from "@grpc/grpc-js";
import { checkedSecret, SecretFile, SecretFileError } from "@lspmesh/service-kit";

export interface GrpcTlsFiles {
  /** PEM certificate chain of this side. */
  certFile: string;
  /** PEM private key of this side. */
  keyFile: string;
  /** PEM CA bundle the peer's certificate must chain to (client certificates are required). */
  caFile: string;
}

export interface GrpcAuthSettings {
  /** A file holding the shared secret (surrounding whitespace ignored); re-read when it changes. */
  secretFile?: string;
  /** The secret itself (`lspmesh serve` makes a random one per process). */
  secret?: string;
  /** Mutual TLS. */
  tls?: GrpcTlsFiles;
  /**
   * Gateways: the secret is a key, and each runner is sent the secret derived from it and the
   * runner's id (deriveRunnerSecret); the key itself is never sent.
   */
  perRunnerSecrets?: boolean;
  /**
   * Runners with mTLS: the names (certificate CN or DNS subject alternative name) a client
   * certificate must carry, e.g. ["lspmesh-gateway"]; undefined = any certificate from the CA.
   */
  clientNames?: readonly string[];
}

/** What grpc-js tells of a call's transport (ServerUnaryCall.getAuthContext(); not exported by it). */
export interface PeerAuthContext {
  sslPeerCertificate?: PeerCertificate;
}

/** What a runner sees of a call: its metadata and, over TLS, the client's certificate. */
export interface CallCredentials {
  metadata: grpc.Metadata;
  /** Over TLS, the client's certificate (on a server, a getter: read it only when needed). */
  readonly authContext?: PeerAuthContext | null;
}

/**
 * The secret of one runner under a gateways' key: base64url HMAC-SHA256 of the runner id (its
 * LSPMESH_RUNNER_ID, or host:port in a static runner list). `lspmesh grpc-secrets` writes them.
 */
export function deriveRunnerSecret(key: string, runnerId: string): string {
  return createHmac("sha256", key).update(`lspmesh-runner-secret:v1:${runnerId}`).digest("base64url");
}

/**
 * Whose secret a runner holds: a registry id `<pool>.<name>` (replicas of a pool that scales,
 * sharing one NATS credential that may write only `<pool>.*` registry keys) holds its pool's
 * secret, derived from `<pool>`; any other id (a fixed replica, or host:port) its own.
 */
export function runnerSecretSubject(runnerId: string): string {
  const dot = runnerId.indexOf(".");
  return dot > 0 && !runnerId.includes(":") ? runnerId.slice(0, dot) : runnerId;
}

/** The metadata key carrying the shared secret. */
export const GRPC_AUTHORIZATION_KEY = "authorization";

/** How often certificate files are re-read (ms). */
const CERTIFICATE_REFRESH_MS = 60_000;

/** Most runners whose derived secret a gateway keeps at once (past that, the memo starts over). */
const MAX_DERIVED_SECRETS = 4096;

export class GrpcAuthError extends Error {
  override name = "GrpcAuthError";
}

/** One side's gRPC credentials. `none()` is for tests of the refusal only. */
export class GrpcAuth {
  private secretFile: SecretFile | undefined;
  /**
   * What each call needs of the secret, computed once per secret value instead of per call (an
   * HMAC per runner call on a gateway, a SHA-256 per call on a runner); a rotated secret is a
   * new value, so it applies at the next call as before.
   */
  private derived: { secret: string; values: Map<string, string> } = { secret: "", values: new Map() };
  private secretDigest: { secret: string; digest: Buffer } | undefined;

  private constructor(private readonly settings: GrpcAuthSettings) {
    if (settings.secretFile || settings.secret) this.secret();
    if (settings.tls) for (const file of Object.values(settings.tls)) readable(file);
  }

  /** Throws GrpcAuthError naming the file or setting at fault. */
  static from(settings: GrpcAuthSettings): GrpcAuth {
    return new GrpcAuth(settings);
  }

  /** No credentials at all: only for loopback, and for tests proving the refusal. */
  static none(): GrpcAuth {
    return new GrpcAuth({});
  }

  /** True when calls carry credentials (a secret, mTLS, or both). */
  get secured(): boolean {
    return Boolean(this.settings.secret || this.settings.secretFile || this.settings.tls);
  }

  /** True with mutual TLS (a connection to a tenant worker, which holds no key, cannot be TLS). */
  get usesTls(): boolean {
    return Boolean(this.settings.tls);
  }

  serverCredentials(): grpc.ServerCredentials {
    const tls = this.settings.tls;
    if (!tls) return grpc.ServerCredentials.createInsecure();
    const { ca, identity } = this.certificateProviders(tls);
    // grpc-js 1.14 passes this function's first two arguments to the constructor in the other
    // order (identity first), so they go in swapped; the mTLS test fails if that is ever fixed.
    return grpc.experimental.createCertificateProviderServerCredentials(identity, ca, true);
  }

  channelCredentials(): grpc.ChannelCredentials {
    const tls = this.settings.tls;
    if (!tls) return grpc.credentials.createInsecure();
    const { ca, identity } = this.certificateProviders(tls);
    return grpc.experimental.createCertificateProviderChannelCredentials(ca, identity);
  }

  /**
   * Metadata to send on every call to the runner `runnerId` (its secret), or undefined without a
   * secret. With per-runner secrets the runner's id is required.
   */
  callMetadata(runnerId?: string): Record<string, string> | undefined {
    const secret = this.secret();
    if (secret === undefined) return undefined;
    if (!this.settings.perRunnerSecrets) return { [GRPC_AUTHORIZATION_KEY]: `Bearer ${secret}` };
    if (runnerId === undefined) throw new GrpcAuthError("per-runner secrets need the runner's id");
    return { [GRPC_AUTHORIZATION_KEY]: this.derivedAuthorization(secret, runnerId) };
  }

  /** `Bearer <the runner's derived secret>`, derived once per runner and key. */
  private derivedAuthorization(secret: string, runnerId: string): string {
    if (this.derived.secret !== secret || this.derived.values.size >= MAX_DERIVED_SECRETS)
      this.derived = { secret, values: new Map() };
    let value = this.derived.values.get(runnerId);
    if (value === undefined) {
      value = `Bearer ${deriveRunnerSecret(secret, runnerSecretSubject(runnerId))}`;
      this.derived.values.set(runnerId, value);
    }
    return value;
  }

  /**
   * Whether a call passes: its secret, when one is set, and, with clientNames, the name in the
   * client's certificate (the certificate itself was checked against the CA by the handshake).
   * Without a secret or mTLS the runner is loopback-only.
   */
  authorizes(call: CallCredentials): boolean {
    const names = this.settings.clientNames;
    // authContext is read only here: on a server it is a getter, and the certificate costs a copy.
    if (
      this.settings.tls &&
      names?.length &&
      !namesOf(call.authContext?.sslPeerCertificate).some((n) => names.includes(n))
    )
      return false;
    const secret = this.secret();
    if (secret === undefined) return true;
    const [value] = call.metadata.get(GRPC_AUTHORIZATION_KEY);
    if (typeof value !== "string" || !value.startsWith("Bearer ")) return false;
    // Compare digests: equal length, constant time, whatever was sent.
    return timingSafeEqual(digest(value.slice("Bearer ".length)), this.digestOf(secret));
  }

  /** The digest of this side's secret, computed again only when the secret changes. */
  private digestOf(secret: string): Buffer {
    if (this.secretDigest?.secret !== secret) this.secretDigest = { secret, digest: digest(secret) };
    return this.secretDigest.digest;
  }

  private secret(): string | undefined {
    try {
      if (this.settings.secret !== undefined) return checkedSecret(this.settings.secret, "the shared secret");
      if (!this.settings.secretFile) return undefined;
      this.secretFile ??= new SecretFile(this.settings.secretFile, { what: "the gRPC secret file" });
      return this.secretFile.value();
    } catch (error) {
      throw error instanceof SecretFileError ? new GrpcAuthError(error.message) : error;
    }
  }

  /** The server or channel using them watches the files while it runs (and stops with it). */
  private certificateProviders(tls: GrpcTlsFiles) {
    const identity = new grpc.experimental.FileWatcherCertificateProvider({
      certificateFile: tls.certFile,
      privateKeyFile: tls.keyFile,
      refreshIntervalMs: CERTIFICATE_REFRESH_MS,
    });
    const ca = new grpc.experimental.FileWatcherCertificateProvider({
      caCertificateFile: tls.caFile,
      refreshIntervalMs: CERTIFICATE_REFRESH_MS,
    });
    return { ca, identity };
  }
}

/** The CN and DNS subject alternative names of a peer certificate. */
function namesOf(certificate: PeerCertificate | undefined): string[] {
  if (!certificate) return [];
  const names = certificate.subjectaltname
    ? certificate.subjectaltname
        .split(", ")
        .filter((name) => name.startsWith("DNS:"))
        .map((name) => name.slice("DNS:".length))
    : [];
  const cn = certificate.subject?.CN;
  return [...names, ...(Array.isArray(cn) ? cn : cn ? [cn] : [])];
}

function digest(text: string): Buffer {
  return hash("sha256", text, "buffer");
}

function readable(file: string): void {
  try {
    readFileSync(file);
  } catch (error) {
    throw new GrpcAuthError(`cannot read the gRPC TLS file ${file}: ${(error as Error).message}`);
  }
}

/** The settings both services read (docs/operations.md): a secret file, mTLS files, or both. */
export const GRPC_AUTH_VARIABLES = {
  secretFile: "LSPMESH_GRPC_SECRET_FILE",
  cert: "LSPMESH_GRPC_TLS_CERT",
  key: "LSPMESH_GRPC_TLS_KEY",
  ca: "LSPMESH_GRPC_TLS_CA",
  /** Gateways: "1" = the secret file holds a key, each runner gets its own derived secret. */
  perRunnerSecrets: "LSPMESH_GRPC_PER_RUNNER_SECRETS",
  /** Runners with mTLS: comma-separated names a client certificate must carry. */
  clientNames: "LSPMESH_GRPC_TLS_CLIENT_NAMES",
} as const;

/** gRPC credentials from LSPMESH_GRPC_* settings; undefined when none are set. Throws GrpcAuthError. */
export function grpcAuthSettings(read: (name: string) => string | undefined): GrpcAuthSettings | undefined {
  const secretFile = read(GRPC_AUTH_VARIABLES.secretFile);
  const [certFile, keyFile, caFile] = [GRPC_AUTH_VARIABLES.cert, GRPC_AUTH_VARIABLES.key, GRPC_AUTH_VARIABLES.ca].map(
    (name) => read(name),
  );
  const tlsCount = [certFile, keyFile, caFile].filter(Boolean).length;
  if (tlsCount > 0 && tlsCount < 3)
    throw new GrpcAuthError(
      `mTLS needs all of ${GRPC_AUTH_VARIABLES.cert}, ${GRPC_AUTH_VARIABLES.key} and ${GRPC_AUTH_VARIABLES.ca}`,
    );
  const perRunner = read(GRPC_AUTH_VARIABLES.perRunnerSecrets);
  if (perRunner !== undefined && !["0", "1", "true", "false", ""].includes(perRunner))
    throw new GrpcAuthError(`${GRPC_AUTH_VARIABLES.perRunnerSecrets} is "${perRunner}": use 1 or 0`);
  const perRunnerSecrets = perRunner === "1" || perRunner === "true";
  if (perRunnerSecrets && !secretFile)
    throw new GrpcAuthError(
      `${GRPC_AUTH_VARIABLES.perRunnerSecrets} needs the key in ${GRPC_AUTH_VARIABLES.secretFile} (runners get secrets derived from it: lspmesh grpc-secrets)`,
    );
  const clientNames = (read(GRPC_AUTH_VARIABLES.clientNames) ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (clientNames.length > 0 && tlsCount !== 3)
    throw new GrpcAuthError(
      `${GRPC_AUTH_VARIABLES.clientNames} needs mTLS (${GRPC_AUTH_VARIABLES.cert} and the others)`,
    );
  if (!secretFile && tlsCount === 0) return undefined;
  return {
    ...(secretFile ? { secretFile } : {}),
    ...(tlsCount === 3 ? { tls: { certFile: certFile!, keyFile: keyFile!, caFile: caFile! } } : {}),
    ...(perRunnerSecrets ? { perRunnerSecrets } : {}),
    ...(clientNames.length > 0 ? { clientNames } : {}),
  };
}
