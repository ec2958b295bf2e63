// Internals authenticate: a runner given credentials refuses every Runner call that does not
// carry them — reads and writes alike — while the health service stays open for probes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { createClient, deriveRunnerSecret, GrpcAuth, GrpcStatus, type ServiceError } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { fixtureWorkspace } from "@lspmesh/test-kit";
import { service as healthService } from "grpc-health-check";
import { afterEach, describe, expect, test } from "vitest";
import { type RunningRunner, startRunner } from "../src/startRunner.js";

const ws = { tenant: "local", workspace: "default" };
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "lspmesh-grpc-auth-"));
}

async function runnerWith(grpcAuth: Parameters<typeof startRunner>[0]["grpcAuth"]): Promise<{
  runner: RunningRunner;
  dir: string;
}> {
  const fixture = fixtureWorkspace("typescript-basic");
  closers.push(() => fixture[Symbol.dispose]());
  const runner = await startRunner({ listen: "127.0.0.1:0", grpcAuth, workspaces: { dir: fixture.dir, ...ws } });
  closers.push(() => runner.close());
  return { runner, dir: fixture.dir };
}

function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => {
      throw new Error("the call was answered");
    },
    (error: ServiceError) => error,
  );
}

describe("shared secret", () => {
  test("calls without it or with a wrong one are UNAUTHENTICATED, reads and ApplyWorkspaceEdit alike; nothing is written", async () => {
    const secretFile = join(tempDir(), "secret");
    writeFileSync(secretFile, "s3cret-s3cret-s3cret-s3cret\n");
    const { runner, dir } = await runnerWith({ secretFile });

    const anonymous = createClient(Runner, runner.address);
    closers.push(() => anonymous.close());
    const wrongAuth = GrpcAuth.from({ secret: "not-the-secret-at-all" });
    const wrong = createClient(Runner, runner.address, undefined, {}, () => wrongAuth.callMetadata());
    closers.push(() => wrong.close());
    const edit = {
      workspace: ws,
      edit: { files: [{ file: "src/planted.ts", create: true, edits: [] }] },
    };
    for (const client of [anonymous, wrong]) {
      for (const call of [
        client.documentSymbols({ workspace: ws, file: "src/greeter.ts" }),
        client.workspaceStatus({ workspace: ws }),
        client.applyWorkspaceEdit(edit as never),
      ]) {
        const error = await refusal(call);
        expect(error.code).toBe(GrpcStatus.UNAUTHENTICATED);
        expect(error.details).toMatch(/LSPMESH_GRPC_SECRET_FILE/);
      }
    }
    expect(() => readFileSync(join(dir, "src/planted.ts"))).toThrow();

    // The right secret, from the same file, is answered; a rotated file applies without a restart.
    const rightAuth = GrpcAuth.from({ secretFile });
    const right = createClient(Runner, runner.address, undefined, {}, () => rightAuth.callMetadata());
    closers.push(() => right.close());
    const symbols = await right.documentSymbols({ workspace: ws, file: "src/greeter.ts" }, { timeoutMs: 60_000 });
    expect(symbols.symbols.map((symbol) => symbol.name)).toContain("makeGreeting");
  }, 90_000);

  test("the health service answers without credentials (kubelet probes)", async () => {
    const { runner } = await runnerWith({ secret: "a-long-enough-shared-secret" });
    const Health = grpc.makeGenericClientConstructor(healthService, "Health");
    const health = new Health(runner.address, grpc.credentials.createInsecure());
    closers.push(() => health.close());
    const check = health.Check as (
      request: { service: string },
      callback: (error: grpc.ServiceError | null, answer: { status: string }) => void,
    ) => void;
    const answer = await new Promise<{ status: string }>((resolve, reject) =>
      check.call(health, { service: "lspmesh.v1.Runner" }, (error, value) => (error ? reject(error) : resolve(value))),
    );
    expect(answer.status).toBe("SERVING");
  });

  test("per-runner secrets: the gateways' key opens each runner with its own secret; one runner's secret opens no other", async () => {
    const key = "the-gateways-key-0123456789";
    const runners = {
      r1: (await runnerWith({ secret: deriveRunnerSecret(key, "r1") })).runner,
      r2: (await runnerWith({ secret: deriveRunnerSecret(key, "r2") })).runner,
    };
    const client = (address: string, metadata: () => Record<string, string> | undefined) => {
      const made = createClient(Runner, address, undefined, {}, metadata);
      closers.push(() => made.close());
      return made;
    };
    const gatewayAuth = GrpcAuth.from({ secret: key, perRunnerSecrets: true });
    for (const [id, runner] of Object.entries(runners)) {
      const answer = await client(runner.address, () => gatewayAuth.callMetadata(id)).workspaceStatus({
        workspace: ws,
      });
      expect(answer.languages).toBeInstanceOf(Array);
    }
    // r1's secret, stolen, is refused by r2; the key itself is never a runner's secret.
    const stolen = GrpcAuth.from({ secret: deriveRunnerSecret(key, "r1") });
    const keyAsSecret = GrpcAuth.from({ secret: key });
    for (const [runner, auth] of [
      [runners.r2, stolen],
      [runners.r1, keyAsSecret],
    ] as const) {
      const error = await refusal(client(runner.address, () => auth.callMetadata()).workspaceStatus({ workspace: ws }));
      expect(error.code).toBe(GrpcStatus.UNAUTHENTICATED);
    }
    expect(() => gatewayAuth.callMetadata()).toThrow(/runner's id/);
  }, 90_000);

  test("a secret shorter than 16 characters is refused at start", () => {
    expect(() => GrpcAuth.from({ secret: "short" })).toThrow(/shorter than 16 characters/);
  });
});

describe("mutual TLS", () => {
  /** A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
  function certificates(): Record<string, string> {
    const dir = tempDir();
    const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
    const selfSigned = (name: string, subject: string) =>
      run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.crt`,
        "-days",
        "2",
        "-subj",
        subject,
      );
    selfSigned("ca", "/CN=lspmesh-test-ca");
    for (const [name, ext] of [
      ["runner", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
      ["gateway", "extendedKeyUsage=clientAuth"],
    ] as const) {
      run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.csr`,
        "-subj",
        `/CN=${name}`,
      );
      writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
      run(
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${name}.crt`,
        "-days",
        "2",
        "-extfile",
        `${name}.ext`,
      );
    }
    // A second CA: its client certificate must not be accepted.
    selfSigned("other", "/CN=other");
    return Object.fromEntries(
      ["ca.crt", "runner.crt", "runner.key", "gateway.crt", "gateway.key", "other.crt", "other.key"].map((file) => [
        file,
        join(dir, file),
      ]),
    );
  }

  test("a client with a certificate from the CA is answered; without one, or from another CA, it is not", async () => {
    const files = certificates();
    const { runner } = await runnerWith({
      tls: { certFile: files["runner.crt"]!, keyFile: files["runner.key"]!, caFile: files["ca.crt"]! },
    });
    const gatewayAuth = GrpcAuth.from({
      tls: { certFile: files["gateway.crt"]!, keyFile: files["gateway.key"]!, caFile: files["ca.crt"]! },
    });
    const good = createClient(Runner, runner.address, gatewayAuth.channelCredentials());
    closers.push(() => good.close());
    const symbols = await good.documentSymbols({ workspace: ws, file: "src/greeter.ts" }, { timeoutMs: 60_000 });
    expect(symbols.symbols.map((symbol) => symbol.name)).toContain("makeGreeting");

    const plaintext = createClient(Runner, runner.address);
    closers.push(() => plaintext.close());
    const noCertificate = createClient(
      Runner,
      runner.address,
      grpc.credentials.createSsl(readFileSync(files["ca.crt"]!)),
    );
    closers.push(() => noCertificate.close());
    const foreign = createClient(
      Runner,
      runner.address,
      grpc.credentials.createSsl(
        readFileSync(files["ca.crt"]!),
        readFileSync(files["other.key"]!),
        readFileSync(files["other.crt"]!),
      ),
    );
    closers.push(() => foreign.close());
    for (const client of [plaintext, noCertificate, foreign]) {
      const error = await refusal(
        client.documentSymbols({ workspace: ws, file: "src/greeter.ts" }, { timeoutMs: 5_000 }),
      );
      expect(error.code).toBe(GrpcStatus.UNAVAILABLE);
    }
  }, 90_000);

  test("with client names, a certificate from the CA that names no gateway (another runner's) is refused", async () => {
    const files = certificates();
    const tls = (name: string) => ({
      certFile: files[`${name}.crt`]!,
      keyFile: files[`${name}.key`]!,
      caFile: files["ca.crt"]!,
    });
    const { runner } = await runnerWith({ tls: tls("runner"), clientNames: ["gateway"] });
    const gateway = createClient(Runner, runner.address, GrpcAuth.from({ tls: tls("gateway") }).channelCredentials());
    closers.push(() => gateway.close());
    expect((await gateway.workspaceStatus({ workspace: ws }, { timeoutMs: 30_000 })).languages).toBeInstanceOf(Array);
    // Another runner's certificate (CN=runner, same CA), used as a client certificate.
    const peer = createClient(Runner, runner.address, GrpcAuth.from({ tls: tls("runner") }).channelCredentials());
    closers.push(() => peer.close());
    const error = await refusal(peer.workspaceStatus({ workspace: ws }, { timeoutMs: 30_000 }));
    expect(error.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(error.details).toMatch(/LSPMESH_GRPC_TLS_CLIENT_NAMES/);
  }, 90_000);
});
