// The same check run embedded and through a gateway (`lspmesh serve` as a child process, then
// `check --gateway`) gives the same report.
import { afterAll, beforeAll, expect, test } from "vitest";
import { descendantPids, isRunning, type ServeProcess, startServe } from "../../../test/e2e/src/serveProcess.js";
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
  const viaGateway = await runCli([...args, "--gateway", serve.url.href, "--format", "json"], { cwd: repo.dir });
  const embedded = await runCli([...args, "--format", "json"], { cwd: repo.dir });
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
  expect(embeddedReport.skipped.map((s) => s.file)).toEqual(["README.md"]);
  expect([viaGateway.code, embedded.code]).toEqual([1, 1]);

  const gatewayText = await runCli([...args, "--gateway", serve.url.href], { cwd: repo.dir });
  const embeddedText = await runCli(args, { cwd: repo.dir });
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
