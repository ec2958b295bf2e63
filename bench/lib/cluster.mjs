// Process setup shared by diagnosticsFanout.mjs, coldStart.mjs and scale.mjs: the corpus folder
// from the command line (or a test fixture), workspace copies on a runner volume, a cluster of
// real processes from the test kit (secured nats-server, `lspmesh runner`, `lspmesh gateway` with
// API key and tenants files), official MCP clients, typescript-language-server spoken to directly
// over stdio (the baseline), RSS from /proc, and a check that nothing we started outlives us.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { sha256Hex } from "@lspmesh/gateway";
import {
  commandLine,
  descendantPids,
  fixturePath,
  isRunning,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  waitFor,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js";

const require = createRequire(import.meta.url);

/** The tenant every cluster benchmark uses (a NATS token: lower case). */
export const TENANT = "bench";
export const TOKEN = "bench-token-0123456789abcdef";

/**
 * The folder to measure: the command line's, else the fixture, saying so (figures on a
 * three-file fixture say little about a real repository).
 */
export function corpusFolder(given, fallbackFixture = "typescript-basic") {
  if (given) {
    const dir = resolve(given);
    if (!existsSync(dir)) throw new Error(`corpus folder ${dir} does not exist`);
    return { dir, fallback: false };
  }
  const dir = fixturePath(fallbackFixture);
  console.log(`no corpus folder given: using the test fixture ${dir} (pass a folder, e.g. /work/corpus/hono)`);
  return { dir, fallback: true };
}

/** Copies a workspace without what no language server reads from a checkout (VCS, installs). */
export function copyWorkspace(from, to) {
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true, filter: (source) => !/[/\\](\.git|node_modules)$/.test(source) });
  return to;
}

/** VmRSS of one process in bytes (0 once it is gone). */
export function rssBytes(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

export const MiB = 2 ** 20;
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Runs `start` with extra variables in process.env (the kit's gateway inherits ours), then restores. */
export async function withEnv(vars, start) {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  try {
    return await start();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * nats-server with lspmesh's authorization, an `lspmesh gateway` with an API key for tenant
 * "bench", and (unless `runnerOptions` is null) one `lspmesh runner` on <root>/workspaces
 * (workspaces at <root>/workspaces/bench/<id>). `workspaces` are the ids the tenants file lists;
 * `limits` the tenant's call limits. More runners: cluster.startRunner(id, options).
 */
export async function startCluster({
  root,
  workspaces,
  runnerId = "bench-runner-0",
  runnerOptions = {},
  limits = { callsPerSecond: 1000, concurrentCalls: 256 },
  gatewayEnv = {},
}) {
  const closers = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch((error) => console.error(`cleanup: ${error.message}`));
    closers.length = 0;
  };
  try {
    const volume = join(root, "workspaces");
    mkdirSync(join(volume, TENANT), { recursive: true });
    const nats = await startNatsServer({ secured: { tenants: [TENANT] } });
    closers.push(() => nats.close());
    const startRunner = async (id, options = {}) => {
      const runner = await startRunnerProcess(volume, nats, id, options);
      closers.push(() => stopRunner(runner));
      return runner;
    };
    const runner = runnerOptions ? await startRunner(runnerId, runnerOptions) : undefined;
    const apiKeysFile = join(root, "api-keys.json");
    writeFileSync(
      apiKeysFile,
      JSON.stringify({ keys: [{ id: "bench-agent", sha256: sha256Hex(TOKEN), tenant: TENANT, scopes: ["lsp:read"] }] }),
    );
    const tenantsFile = join(root, "tenants.json");
    writeFileSync(tenantsFile, JSON.stringify({ tenants: { [TENANT]: { workspaces, limits } } }));
    const gateway = await withEnv(gatewayEnv, () => startGatewayProcess({ natsUrl: nats, apiKeysFile, tenantsFile }));
    closers.push(() => gateway.stop());
    if (runner) await untilRunnersLive(gateway, 1);
    return { nats, runner, gateway, volume, startRunner, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Waits until the gateway routes to `count` live runners (it reads the registry from NATS KV),
 * `runnerId` among them when given (a runner replacing another is routed to only then).
 */
export async function untilRunnersLive(gateway, count, runnerId) {
  await waitFor(
    `${count} live runner(s) at the gateway${runnerId ? `, ${runnerId} among them` : ""}`,
    async () => {
      const text = await gateway.metrics();
      const live = Number(text.match(/lspmesh_runners_live (\d+)/)?.[1]);
      const up = !runnerId || new RegExp(`lspmesh_runner_up\\{runner="${runnerId}"[^}]*\\} 1`).test(text);
      return live === count && up;
    },
    { timeoutMs: 60_000 },
  );
}

/** SIGTERM (the runner stops its language servers); SIGKILL for it and its children if that hangs (ms). */
export async function stopRunner(runner, graceMs = 20_000) {
  const stopped = runner.stop().then(() => true);
  if (await Promise.race([stopped, sleep(graceMs).then(() => false)])) return;
  console.error(`runner ${runner.pid} did not stop within ${graceMs} ms: killing it and its language servers`);
  await runner.kill();
}

/** An initialized official MCP client on `url` (bearer token when given). */
export async function connectMcp(url, token, name = "lspmesh-bench", fetchImpl) {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    }),
  );
  return client;
}

/** tools/call; a tool error (isError) is thrown with its text. */
export async function callTool(client, tool, args, timeoutMs = 120_000) {
  const result = await client.callTool({ name: tool, arguments: args }, { timeout: timeoutMs });
  if (result.isError) {
    throw new Error(`${tool}: ${result.content.map((part) => part.text ?? "").join(" ")}`);
  }
  return result.structuredContent ?? {};
}

/**
 * typescript-language-server over stdio, launched and initialized as the runner does it
 * (services/lsp-runner builtinLanguages.ts: pinned tsserver, no syntax server, no typings
 * download), so that the baseline differs from lspmesh only by what lspmesh adds.
 */
export async function startDirectTypescript(workspace, { onDiagnostics } = {}) {
  const child = spawn(process.execPath, [require.resolve("typescript-language-server/lib/cli.mjs"), "--stdio"], {
    cwd: workspace,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const exited = new Promise((done) => child.once("exit", done));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  // Server-to-client requests (configuration, progress creation, registrations): answered empty.
  connection.onRequest(() => null);
  connection.onNotification("textDocument/publishDiagnostics", (params) => onDiagnostics?.(params));
  connection.listen();
  const rootUri = pathToFileURL(workspace).href;
  const initialize = () =>
    connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: "bench" }],
      capabilities: {
        textDocument: { publishDiagnostics: { relatedInformation: true }, definition: { linkSupport: false } },
        window: { workDoneProgress: true },
      },
      initializationOptions: {
        tsserver: { path: require.resolve("typescript/lib/tsserver.js"), useSyntaxServer: "never" },
        disableAutomaticTypingAcquisition: true,
        maxTsServerMemory: 3072,
        plugins: [],
      },
    });
  const versions = new Map();
  return {
    pid: child.pid,
    connection,
    async initialize() {
      await initialize();
      await connection.sendNotification("initialized", {});
    },
    uriOf: (file) => pathToFileURL(join(workspace, file)).href,
    async open(file) {
      const uri = pathToFileURL(join(workspace, file)).href;
      versions.set(uri, 1);
      await connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: "typescript", version: 1, text: readFileSync(join(workspace, file), "utf8") },
      });
      return uri;
    },
    /** A whole-content didChange (what the runner sends after re-reading a file). */
    async change(file, text) {
      const uri = pathToFileURL(join(workspace, file)).href;
      const version = (versions.get(uri) ?? 1) + 1;
      versions.set(uri, version);
      await connection.sendNotification("textDocument/didChange", {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      });
    },
    async close() {
      const shutdown = (async () => {
        await connection.sendRequest("shutdown");
        await connection.sendNotification("exit");
      })().catch(() => {});
      await Promise.race([shutdown.then(() => Promise.race([exited, sleep(3_000)])), sleep(5_000)]);
      connection.dispose();
      // Its tsserver children go with it; SIGKILL whatever is left of the tree.
      const tree = [...descendantPids(child.pid), child.pid].filter(isRunning);
      for (const pid of tree) process.kill(pid, "SIGKILL");
    },
  };
}

/**
 * Processes still running under this one (language servers, nats-server, lspmesh children);
 * each is reported and killed, so a failed run leaves nothing behind. Returns how many there were.
 */
/**
 * The end of a benchmark run: kills what it left running, removes its folder, and exits non-zero
 * when it failed (the error is printed) or left something behind.
 */
export function endRun(root, failed) {
  const left = reapLeftovers();
  rmSync(root, { recursive: true, force: true });
  if (failed) {
    console.error(failed);
    process.exitCode = 1;
  } else if (left > 0) process.exitCode = 1;
}

// A run stopped by a signal (Ctrl-C, a timeout's SIGTERM) or by a crash never reaches its endRun:
// whatever it started (serve, runners, gateways, nats-server, language servers) is killed on exit.
process.once("exit", () => reapLeftovers());
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(128 + constants.signals[signal]));

export function reapLeftovers() {
  const left = descendantPids(process.pid).filter(isRunning);
  for (const pid of left) {
    console.error(`left over, killing: ${pid} ${commandLine(pid).slice(0, 160)}`);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  return left.length;
}

/**
 * A position to ask find_definition at in an unknown folder, whose definition is in another
 * workspace file: the first name imported from a relative module (TypeScript
 * `import { X } from "./y"`, Python `from y import X`, Rust `use y::X` with y a module of the
 * crate), or a qualified call into the workspace's own code (Go `pkg.Name(`, C++ `ns::name(`).
 */
export function findImportPosition(dir, language, files) {
  const patterns = {
    typescript: /^import\s+(?:type\s+)?\{\s*(?:type\s+)?([A-Za-z_$][\w$]*)[^}]*\}\s+from\s+["']\.{1,2}\//d,
    python: /^from\s+[\w.]+\s+import\s+\(?\s*([A-Za-z_]\w*)/d,
    rust: /^use\s+(?:(?:crate|super|self)::)?(\w+)::(?:\w+::)*([A-Za-z_]\w*)\s*;/d,
    go: /\b([a-z]\w*)\.([A-Z]\w*)\(/d,
    cpp: /\b([a-z_]\w*)::([A-Za-z_]\w*)\(/d,
  };
  const pattern = patterns[language];
  if (!pattern) return undefined;
  for (const file of files) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    for (const [index, line] of lines.entries()) {
      const match = pattern.exec(line);
      if (!match) continue;
      // Rust and Go: the qualifier must be the workspace's own module or package, not std.
      const own = [`src/${match[1]}.rs`, `src/${match[1]}/mod.rs`];
      if (language === "rust" && !own.some((path) => existsSync(join(dir, path)))) continue;
      if (language === "go" && !new RegExp(`^\\s*(?:import\\s+)?"[^"]*/${match[1]}"`, "m").test(lines.join("\n")))
        continue;
      const group = match.length > 2 ? 2 : 1;
      // 1-based code-point column: UTF-16 index of the name plus the astral characters before it.
      const before = line.slice(0, match.indices[group][0]);
      return { file, line: index + 1, column: [...before].length + 1, name: match[group] };
    }
  }
  return undefined;
}
