// How gateways and runners authenticate each other on gRPC: mutual TLS (certificates from files,
// reloaded when they change), a shared secret sent as `authorization: Bearer …` on every call
// (read from a file, re-read when it changes), or both. A runner refuses every call of the
// lspmesh.v1.Runner service that does not pass; the standard health service stays open (it says
// only SERVING / NOT_SERVING) so kubelet gRPC probes work without credentials.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";

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
}

/** The metadata key carrying the shared secret. */
export const GRPC_AUTHORIZATION_KEY = "authorization";

/** How often a secret file is checked for a new value, at most (ms). */
const SECRET_RECHECK_MS = 1_000;
/** How often certificate files are re-read (ms). */
const CERTIFICATE_REFRESH_MS = 60_000;
/** Shortest secret accepted: 16 bytes of text. */
const MIN_SECRET_LENGTH = 16;

export class GrpcAuthError extends Error {
  override name = "GrpcAuthError";
}

/** One side's gRPC credentials. `none()` is for tests of the refusal only. */
export class GrpcAuth {
  private cachedSecret: string | undefined;
  private secretCheckedAt = 0;
  private secretMtimeMs = -1;

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

  /** Metadata to send on every call (the secret), or undefined without one. */
  callMetadata(): Record<string, string> | undefined {
    const secret = this.secret();
    return secret === undefined ? undefined : { [GRPC_AUTHORIZATION_KEY]: `Bearer ${secret}` };
  }

  /**
   * Whether a call's metadata passes. Without a secret every call passes (mTLS, when set, was
   * already checked by the TLS handshake; without either the runner is loopback-only).
   */
  authorizes(metadata: grpc.Metadata): boolean {
    const secret = this.secret();
    if (secret === undefined) return true;
    const [value] = metadata.get(GRPC_AUTHORIZATION_KEY);
    if (typeof value !== "string" || !value.startsWith("Bearer ")) return false;
    // Compare digests: equal length, constant time, whatever was sent.
    return timingSafeEqual(digest(value.slice("Bearer ".length)), digest(secret));
  }

  private secret(): string | undefined {
    if (this.settings.secret !== undefined) return checkedSecret(this.settings.secret, "the shared secret");
    const file = this.settings.secretFile;
    if (!file) return undefined;
    const now = Date.now();
    if (this.cachedSecret !== undefined && now - this.secretCheckedAt < SECRET_RECHECK_MS) return this.cachedSecret;
    this.secretCheckedAt = now;
    try {
      const mtime = statSync(file).mtimeMs;
      if (mtime !== this.secretMtimeMs || this.cachedSecret === undefined) {
        this.cachedSecret = checkedSecret(readFileSync(file, "utf8").trim(), `the secret file ${file}`);
        this.secretMtimeMs = mtime;
      }
    } catch (error) {
      // A secret being rotated (file briefly missing) keeps the last one; none at all is fatal.
      if (this.cachedSecret === undefined)
        throw error instanceof GrpcAuthError
          ? error
          : new GrpcAuthError(`cannot read the gRPC secret file ${file}: ${(error as Error).message}`);
    }
    return this.cachedSecret;
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

function checkedSecret(secret: string, what: string): string {
  if (secret.length < MIN_SECRET_LENGTH)
    throw new GrpcAuthError(`${what} is shorter than ${MIN_SECRET_LENGTH} characters: use a long random value`);
  return secret;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
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
  if (!secretFile && tlsCount === 0) return undefined;
  return {
    ...(secretFile ? { secretFile } : {}),
    ...(tlsCount === 3 ? { tls: { certFile: certFile!, keyFile: keyFile!, caFile: caFile! } } : {}),
  };
}
