import { expect, test } from "vitest";
import { GatewayError } from "./errors.js";
import { StaticWorkspaceResolver, type WorkspaceResolver } from "./workspaces.js";

const resolver: WorkspaceResolver = new StaticWorkspaceResolver({ tenant: "local", workspace: "default" });

test("an omitted or matching workspace resolves to the configured one", async () => {
  await expect(resolver.resolve(undefined, {})).resolves.toEqual({ tenant: "local", workspace: "default" });
  await expect(resolver.resolve("default", {})).resolves.toEqual({ tenant: "local", workspace: "default" });
});

test("any other workspace is NOT_FOUND and names the one served", async () => {
  const error = await resolver.resolve("other", {}).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  expect(error).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("this server serves 'default'") });
});

test("invalid configured ids are refused at construction", () => {
  expect(() => new StaticWorkspaceResolver({ tenant: "Local", workspace: "default" })).toThrow(/invalid tenant id/);
  expect(() => new StaticWorkspaceResolver({ tenant: "local", workspace: "../x" })).toThrow(/invalid workspace id/);
});
