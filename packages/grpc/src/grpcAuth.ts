// How gateways and runners authenticate each other on gRPC: mutual TLS (certificates from files,
// reloaded when they change), a shared secret sent as `authorization: Bearer …` on every call
// (read from a file, re-read when it changes), or both. A runner refuses every call of the
// lspmesh.v1.Runner service that does not pass; the standard health service stays open (it says
// only SERVING / NOT_SERVING) so kubelet gRPC probes work without credentials.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
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
}

/** The metadata key carrying the shared secret. */
export const GRPC_AUTHORIZATION_KEY = "authorization";

/** How often certificate files are re-read (ms). */
const CERTIFICATE_REFRESH_MS = 60_000;

export class GrpcAuthError extends Error {
  override name = "GrpcAuthError";
}

/** One side's gRPC credentials. `none()` is for tests of the refusal only. */
export class GrpcAuth {
  private secretFile: SecretFile | undefined;

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
