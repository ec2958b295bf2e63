import { expect, test } from "vitest";
import { deriveRunnerSecret, GrpcAuth, runnerSecretSubject } from "./grpcAuth.js";

test("replicas of a pool (`<pool>.<name>`) share the pool's secret; other ids keep their own", () => {
  expect(runnerSecretSubject("typescript.lspmesh-runner-7f9c")).toBe("typescript");
  expect(runnerSecretSubject("lspmesh-runner-typescript-0")).toBe("lspmesh-runner-typescript-0");
  expect(runnerSecretSubject("10.0.0.7:7421")).toBe("10.0.0.7:7421");
  expect(runnerSecretSubject("runner.svc.cluster.local:7421")).toBe("runner.svc.cluster.local:7421");
  const gateway = GrpcAuth.from({ secret: "a-key-of-at-least-16-chars", perRunnerSecrets: true });
  expect(gateway.callMetadata("typescript.a")).toEqual(gateway.callMetadata("typescript.b"));
  expect(gateway.callMetadata("typescript.a")?.authorization).toBe(
    `Bearer ${deriveRunnerSecret("a-key-of-at-least-16-chars", "typescript")}`,
  );
  expect(gateway.callMetadata("python.a")).not.toEqual(gateway.callMetadata("typescript.a"));
});
