import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, test, vi } from "vitest";
import { deriveRunnerSecret, GrpcAuth, type PeerAuthContext, runnerSecretSubject } from "./grpcAuth.js";

const folders: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A secret file, and a way to rotate it that the file's re-read sees at once. */
function secretFile(value: string) {
  const folder = mkdtempSync(join(tmpdir(), "lspmesh-grpc-auth-"));
  folders.push(folder);
  const file = join(folder, "secret");
  writeFileSync(file, value);
  let now = Date.now();
  vi.spyOn(Date, "now").mockImplementation(() => now);
  const rotate = (next: string) => {
    writeFileSync(file, next);
    const later = new Date(now + 60_000);
    utimesSync(file, later, later);
    now += 60_000;
  };
  return { file, rotate };
}

function bearer(value: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${value}`);
  return metadata;
}

describe("per-runner secrets, derived once per runner and key", () => {
  test("each runner gets its own, the same at every call, and a rotated key's from the next call on", () => {
    const { file, rotate } = secretFile("the-first-key-0123456789");
    const gateway = GrpcAuth.from({ secretFile: file, perRunnerSecrets: true });
    const expected = (key: string, id: string) => `Bearer ${deriveRunnerSecret(key, runnerSecretSubject(id))}`;
    for (const id of ["pool.a", "pool.b", "other", "10.0.0.7:7421"])
      for (let call = 0; call < 2; call++)
        expect(gateway.callMetadata(id)).toEqual({ authorization: expected("the-first-key-0123456789", id) });
    rotate("the-second-key-0123456789");
    expect(gateway.callMetadata("pool.a")).toEqual({ authorization: expected("the-second-key-0123456789", "pool.a") });
    expect(gateway.callMetadata("other")).toEqual({ authorization: expected("the-second-key-0123456789", "other") });
  });
});

describe("a runner's check of the secret", () => {
  test("the right secret passes, any other not; after a rotation only the new one", () => {
    const { file, rotate } = secretFile("the-runner-secret-0123456789");
    const runner = GrpcAuth.from({ secretFile: file });
    expect(runner.authorizes({ metadata: bearer("the-runner-secret-0123456789") })).toBe(true);
    expect(runner.authorizes({ metadata: bearer("the-runner-secret-012345678") })).toBe(false);
    expect(runner.authorizes({ metadata: new grpc.Metadata() })).toBe(false);
    rotate("the-rotated-secret-0123456789");
    expect(runner.authorizes({ metadata: bearer("the-runner-secret-0123456789") })).toBe(false);
    expect(runner.authorizes({ metadata: bearer("the-rotated-secret-0123456789") })).toBe(true);
  });

  test("the peer's certificate is not looked up unless client names are configured", () => {
    const runner = GrpcAuth.from({ secret: "the-runner-secret-0123456789" });
    const call = {
      metadata: bearer("the-runner-secret-0123456789"),
      get authContext(): PeerAuthContext {
        throw new Error("read");
      },
    };
    expect(runner.authorizes(call)).toBe(true);
  });
});
