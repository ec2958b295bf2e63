// The same check run embedded and through a gateway gives the same report: `lspmesh serve` as a
// child process for a plain check, and a gateway with a runner serving two workspaces (head and
// base checkouts on a volume) for a check against a base (long, a second gateway and runner:
// `npm run test:faults`).
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  NoTokenAuthenticator,
  parseTenantsFile,
  type RunningGateway,
  StaticRunnerRouter,
  startGateway,
  TenantWorkspaceResolver,
} from "@lspmesh/gateway";
import { type RunningRunner, startRunner } from "@lspmesh/lsp-runner";
import { descendantPids, isFaultsTier, isRunning, type ServeProcess, startServe } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { CheckReport } from "../src/check/report.js";
import { runCli } from "./cli.js";
import { type FixtureRepo, fixtureRepo } from "./fixtureRepo.js";

let repo: FixtureRepo;
let serve: ServeProcess;

beforeAll(async () => {
  repo = fixtureRepo();
  serve = await startServe(repo.dir);
});

afterAll(async () => {
  await serve?.stop();
  repo?.[Symbol.dispose]();
});

test("embedded and gateway reports are equal, in JSON and in text, with the same exit code", async () => {
  const args = ["check", "--changed-since", "main"];
  // Each pair side by side: two processes reading the same checkout.
  const [viaGateway, embedded] = await Promise.all([
    runCli([...args, "--gateway", serve.url.href, "--format", "json"], { cwd: repo.dir }),
    runCli([...args, "--format", "json"], { cwd: repo.dir }),
  ]);
  expect(viaGateway.stderr).toBe("");
  expect(embedded.stderr).toBe("");
  const gatewayReport = JSON.parse(viaGateway.stdout) as CheckReport;
  const embeddedReport = JSON.parse(embedded.stdout) as CheckReport;
  expect(gatewayReport.mode).toBe("gateway");
  expect(embeddedReport.mode).toBe("embedded");
  expect({ ...gatewayReport, mode: "-" }).toEqual({ ...embeddedReport, mode: "-" });
  // Not trivially equal: the changed files and their errors are there.
  expect(embeddedReport.files.map((f) => f.file)).toContain("src/introduced.ts");
  expect(embeddedReport.counts.new.error).toBe(5);
  expect(embeddedReport.skipped.map((s) => s.file)).toEqual(["README.md", "src/dangling.ts", "src/outside.ts"]);
  expect([viaGateway.code, embedded.code]).toEqual([1, 1]);

  const [gatewayText, embeddedText] = await Promise.all([
    runCli([...args, "--gateway", serve.url.href], { cwd: repo.dir }),
    runCli(args, { cwd: repo.dir }),
  ]);
  expect(gatewayText.stdout).toBe(embeddedText.stdout);
}, 180_000);

test("the gateway's language servers stop with it", async () => {
  const pid = serve.child.pid!;
  const servers = descendantPids(pid);
  expect(servers.length).toBeGreaterThan(0);
  const { code } = await serve.stop();
  expect(code).toBe(0);
  expect(servers.filter(isRunning)).toEqual([]);
}, 60_000);

test.runIf(isFaultsTier())(
  "against a base: embedded and gateway (--base-workspace) reports are equal",
  async () => {
    // A volume as runners see it: <root>/<tenant>/<workspace>, the head checkout and an export of main.
    const volume = join(repo.outside, "volume");
    mkdirSync(join(volume, "acme"), { recursive: true });
    symlinkSync(repo.dir, join(volume, "acme", "head"));
    const baseDir = join(volume, "acme", "main");
    mkdirSync(baseDir);
    execFileSync("sh", ["-c", `git archive main | tar -x -C '${baseDir}'`], { cwd: repo.dir });

    let runner: RunningRunner | undefined;
    let gateway: RunningGateway | undefined;
    try {
      runner = await startRunner({ listen: "127.0.0.1:0", workspaces: { root: volume } });
      gateway = await startGateway({
        host: "127.0.0.1",
        port: 0,
        router: new StaticRunnerRouter(runner.address),
        workspaces: new TenantWorkspaceResolver(
          parseTenantsFile({ tenants: { acme: { workspaces: ["head", "main"] } } }),
        ),
        authenticator: new NoTokenAuthenticator({ tenant: "acme", subject: "ci", scopes: ["lsp:read"] }),
      });
      const args = ["check", "--changed-since", "main", "--base", "main", "--format", "json"];
      const [viaGateway, embedded] = await Promise.all([
        runCli([...args, "--gateway", gateway.url, "--workspace", "head", "--base-workspace", "main"], {
          cwd: repo.dir,
        }),
        runCli(args, { cwd: repo.dir }),
      ]);
      expect(viaGateway.stderr).toBe("");
      const gatewayReport = JSON.parse(viaGateway.stdout) as CheckReport;
      const embeddedReport = JSON.parse(embedded.stdout) as CheckReport;
      expect({ ...gatewayReport, mode: "-" }).toEqual({ ...embeddedReport, mode: "-" });
      expect(embeddedReport.counts.new.error).toBe(2);
      expect(embeddedReport.counts.fixed.error).toBe(1);
      expect(embeddedReport.counts.unchanged.error).toBe(3);
      expect([viaGateway.code, embedded.code]).toEqual([1, 1]);
    } finally {
      await gateway?.close();
      await runner?.close();
    }
  },
  180_000,
);
