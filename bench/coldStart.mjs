#!/usr/bin/env node
// Cold start: the first request on a workspace nobody has asked about yet, until the first correct
// answer (find_definition of an imported name: ≥1 location in another file, partial false), per
// language whose server works here. Every repetition uses a fresh copy of the folder. Modes:
//   - serve: `lspmesh serve COPY` started (until it prints its URL), then the first call;
//   - cluster, no warm-up: a fresh `lspmesh runner` (behind an `lspmesh gateway`, NATS) is live,
//     then the first call;
//   - cluster, warm-up: the runner started with LSPMESH_WARMUP=bench/<workspace>/<language>,
//     workspace_status says the server is ready, then the first call. (`lspmesh serve` has no
//     warm-up setting: LSPMESH_WARMUP is read by `lspmesh runner` only.)
// Baseline in the same run (TypeScript): typescript-language-server spoken to directly,
// initialize → didOpen → the first correct definition answer.
// Usage: node bench/coldStart.mjs [folder…] [--reps 3]
//   Each folder replaces the fixture of its language (tsconfig.json/package.json: typescript,
//   pyproject.toml/pyrightconfig.json/setup.py: python, Cargo.toml: rust, go.mod: go,
//   CMakeLists.txt/compile_commands.json: cpp); without folders: test/kit/fixtures/*-basic.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fixturePath, startServe } from "@lspmesh/test-kit";
import {
  callTool,
  connectMcp,
  copyWorkspace,
  endRun,
  findImportPosition,
  sleep,
  startCluster,
  startDirectTypescript,
  stopRunner,
  TOKEN,
  untilRunnersLive,
} from "./lib/cluster.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { reps: { type: "string", default: "3" } },
});
const REPS = Number(values.reps);
/** How long a cold start may take until the first correct answer, ms (a large repository indexing). */
const ANSWER_TIMEOUT_MS = 300_000;
/** How long a warm-up may take before the run gives up, ms. */
const WARM_UP_TIMEOUT_MS = 120_000;
/** A warmed-up server past starting, with no progress open this long (ms), counts as done. */
const WARM_QUIET_MS = 3_000;
/** Between attempts while answers are partial or the server is starting, ms. */
const RETRY_MS = 200;

const LANGUAGES = {
  typescript: {
    fixture: "typescript-basic",
    extensions: /\.(ts|tsx|mts|cts)$/,
    markers: ["tsconfig.json", "package.json"],
  },
  python: {
    fixture: "python-basic",
    extensions: /\.py$/,
    markers: ["pyrightconfig.json", "pyproject.toml", "setup.py"],
  },
  rust: { fixture: "rust-basic", extensions: /\.rs$/, markers: ["Cargo.toml"] },
  go: { fixture: "go-basic", extensions: /\.go$/, markers: ["go.mod"] },
  cpp: {
    fixture: "cpp-basic",
    extensions: /\.(cpp|cc|cxx|h|hpp)$/,
    markers: ["CMakeLists.txt", "compile_commands.json"],
  },
};

/** Why a language cannot be measured here, or undefined when its server works. */
function unavailable(language) {
  const works = (command, args = ["--version"]) =>
    spawnSync(command, args, { stdio: "ignore", timeout: 20_000 }).status === 0;
  if (language === "rust" && !works("rust-analyzer"))
    return "rust-analyzer does not run here (`rust-analyzer --version` fails: a rustup proxy without the component)";
  if (language === "cpp" && !works("clangd")) return "clangd is not installed";
  if (language === "go" && !works("gopls", ["version"])) return "gopls is not installed";
  return undefined;
}

function languageOf(dir) {
  for (const [language, { markers }] of Object.entries(LANGUAGES)) {
    if (markers.some((marker) => existsSync(join(dir, marker)))) return language;
  }
  throw new Error(
    `cannot tell the language of ${dir}: none of the marker files (tsconfig.json, pyproject.toml, Cargo.toml, go.mod, CMakeLists.txt)`,
  );
}

/** Source files of the language, src/ first, tests and declaration files last (they import less). */
function sourceFiles(dir, extensions) {
  const skip = /(^|\/)(node_modules|\.git|dist|build|target|\.venv|venv)(\/|$)/;
  const files = readdirSync(dir, { recursive: true })
    .map((file) => String(file).replaceAll("\\", "/"))
    .filter((file) => extensions.test(file) && !skip.test(file) && !/\.d\.ts$/.test(file));
  const rank = (file) => (file.startsWith("src/") ? 0 : 1) + (/test|spec|bench/.test(file) ? 2 : 0);
  return files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

// Which folder per language: the command line's, else the fixture.
const folders = new Map(
  Object.entries(LANGUAGES).map(([language, { fixture }]) => [language, { dir: fixturePath(fixture), given: false }]),
);
for (const given of positionals) {
  const dir = resolve(given);
  folders.set(languageOf(dir), { dir, given: true });
}
if (positionals.length === 0)
  console.log("no folders given: every language uses its test fixture (test/kit/fixtures/<language>-basic)");

const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-cold-"));
/** 1/5/15-minute load averages: the machine is shared, so figures are read against them. */
const results = { reps: REPS, languages: {}, skipped: {}, loadAverage: { start: loadavg() } };
const rows = [];
let failed;
let copies = 0;
const freshCopy = (dir) => copyWorkspace(dir, join(root, "copies", `copy-${++copies}`));

/** A correct definition answer: at least one location in another file, not partial. */
function correct(answer, position) {
  return answer.partial === false && (answer.locations ?? []).some((location) => location.file !== position.file);
}

/** find_definition until correct; returns ms from the first call and how many calls it took. */
async function firstCorrectAnswer(client, position, workspace) {
  const start = process.hrtime.bigint();
  const args = {
    ...(workspace ? { workspace } : {}),
    file: position.file,
    line: position.line,
    column: position.column,
  };
  for (let attempts = 1; ; attempts++) {
    const answer = await callTool(client, "find_definition", args, ANSWER_TIMEOUT_MS).catch((error) => ({ error }));
    if (!answer.error && correct(answer, position)) return { ms: elapsedMs(start), attempts };
    if (elapsedMs(start) > ANSWER_TIMEOUT_MS) {
      throw new Error(
        `no correct definition within ${ANSWER_TIMEOUT_MS} ms: ${answer.error?.message ?? JSON.stringify(answer).slice(0, 300)}`,
      );
    }
    await sleep(RETRY_MS);
  }
}

/** `lspmesh serve` on a fresh copy: spawn → URL, then first call → first correct answer. */
async function serveRun(dir, position) {
  const copy = freshCopy(dir);
  const spawned = process.hrtime.bigint();
  const serve = await startServe(copy, ["--quiet"]);
  const startMs = elapsedMs(spawned);
  try {
    const client = await connectMcp(serve.url, undefined, "cold-start-bench");
    try {
      return { startMs, ...(await firstCorrectAnswer(client, position)) };
    } finally {
      await client.close();
    }
  } finally {
    await serve.stop();
  }
}

/** The runner's languages file: only `language` on (deployments run one pool per language). */
function languagesFile(language) {
  return { languages: Object.fromEntries(Object.keys(LANGUAGES).map((id) => [id, { enabled: id === language }])) };
}

/** A fresh runner for one fresh workspace; with warm-up, started with LSPMESH_WARMUP and waited for. */
async function clusterRun(cluster, language, dir, position, workspace, warm) {
  copyWorkspace(dir, join(cluster.volume, "bench", workspace));
  const spawned = process.hrtime.bigint();
  let warmState;
  const runner = await cluster.startRunner(`cold-${workspace}`, {
    languages: languagesFile(language),
    pool: language,
    env: warm ? { LSPMESH_WARMUP: `bench/${workspace}/${language}` } : {},
  });
  try {
    await untilRunnersLive(cluster.gateway, 1, `cold-${workspace}`);
    const client = await connectMcp(cluster.gateway.url, TOKEN, "cold-start-bench");
    try {
      let readyMs;
      if (warm) {
        // workspace_status starts nothing: it reports what the warm-up started. Done when the
        // server is ready, or when it is past starting with no progress open for WARM_QUIET_MS (a
        // server that was asked nothing yet, e.g. typescript, stays "indexing" until its first answer).
        let quietSince;
        for (;;) {
          const status = await callTool(client, "workspace_status", { workspace }).catch(() => ({}));
          const entry = status.languages?.find((candidate) => candidate.language === language);
          if (entry?.state === "ready") break;
          if (entry?.state === "failed") throw new Error(`warm-up of ${language} failed: ${JSON.stringify(status)}`);
          const quiet = entry && entry.state !== "starting" && !entry.progress;
          quietSince = quiet ? (quietSince ?? process.hrtime.bigint()) : undefined;
          if (quietSince && elapsedMs(quietSince) >= WARM_QUIET_MS) break;
          if (elapsedMs(spawned) > WARM_UP_TIMEOUT_MS)
            throw new Error(`warm-up of ${language} not done: ${JSON.stringify(status)}`);
          await sleep(100);
        }
        warmState = (await callTool(client, "workspace_status", { workspace })).languages?.find(
          (entry) => entry.language === language,
        )?.state;
        readyMs = elapsedMs(spawned);
      }
      const startMs = readyMs ?? elapsedMs(spawned);
      return { startMs, warmState, ...(await firstCorrectAnswer(client, position, workspace)) };
    } finally {
      await client.close();
    }
  } finally {
    await stopRunner(runner);
  }
}

/** Baseline: typescript-language-server directly, initialize → first correct definition. */
async function directRun(dir, position) {
  const copy = freshCopy(dir);
  const server = await startDirectTypescript(copy);
  try {
    const start = process.hrtime.bigint();
    await server.initialize();
    const uri = await server.open(position.file);
    const lspPosition = { line: position.line - 1, character: position.column - 1 };
    for (let attempts = 1; ; attempts++) {
      const answer = await server.connection.sendRequest("textDocument/definition", {
        textDocument: { uri },
        position: lspPosition,
      });
      const locations = Array.isArray(answer) ? answer : answer ? [answer] : [];
      if (locations.some((location) => (location.uri ?? location.targetUri) !== uri))
        return { ms: elapsedMs(start), attempts };
      if (elapsedMs(start) > ANSWER_TIMEOUT_MS) throw new Error("direct server: no correct definition");
      await sleep(RETRY_MS);
    }
  } finally {
    await server.close();
  }
}

function addRows(language, mode, runs, baselineP50) {
  const first = percentiles(runs.map((run) => run.ms));
  // The direct server has no start phase of its own: its figure starts at initialize.
  const hasStart = runs.every((run) => run.startMs !== undefined);
  const start = hasStart ? percentiles(runs.map((run) => run.startMs)) : undefined;
  const warmStates = runs.map((run) => run.warmState).filter(Boolean);
  results.languages[language][mode] = {
    firstAnswer: first,
    ...(start ? { start } : {}),
    attempts: runs.map((run) => run.attempts),
    ...(warmStates.length ? { warmStates } : {}),
    ...(baselineP50 ? { ratioToBaseline: first.p50 / baselineP50 } : {}),
  };
  rows.push({
    language,
    mode,
    runs: runs.length,
    "start p50": start?.p50 ?? "-",
    "answer p50": first.p50,
    "answer max": first.max,
    "start+answer p50": hasStart ? percentiles(runs.map((run) => run.startMs + run.ms)).p50 : "-",
    calls: Math.max(...runs.map((run) => run.attempts)),
    // A string: the table's numbers are whole ms.
    "×baseline": baselineP50 ? (first.p50 / baselineP50).toFixed(2) : "-",
    "warm state": warmStates.join(","),
  });
}

try {
  for (const [language, { extensions }] of Object.entries(LANGUAGES)) {
    const { dir, given } = folders.get(language);
    const why = unavailable(language);
    if (why) {
      console.log(`${language}: skipped, ${why}`);
      results.skipped[language] = why;
      continue;
    }
    const position = findImportPosition(dir, language, sourceFiles(dir, extensions));
    if (!position) throw new Error(`${language}: no imported name to ask find_definition about in ${dir}`);
    console.log(
      `${language}: ${dir}${given ? "" : " (fixture)"}, find_definition of ${position.name} at ${position.file}:${position.line}:${position.column}`,
    );
    results.languages[language] = { folder: dir, position };

    let baselineP50;
    if (language === "typescript") {
      const direct = [];
      for (let rep = 0; rep < REPS; rep++) direct.push(await directRun(dir, position));
      baselineP50 = percentiles(direct.map((run) => run.ms)).p50;
      addRows(language, "typescript-language-server directly (baseline)", direct, baselineP50);
    }
    const serve = [];
    for (let rep = 0; rep < REPS; rep++) serve.push(await serveRun(dir, position));
    addRows(language, "lspmesh serve, no warm-up", serve, baselineP50);

    const workspaces = Array.from({ length: REPS }, (_, rep) => [`cold-${rep}`, `warm-${rep}`]).flat();
    const cluster = await startCluster({ root: join(root, `cluster-${language}`), workspaces, runnerOptions: null });
    try {
      for (const warm of [false, true]) {
        const runs = [];
        for (let rep = 0; rep < REPS; rep++) {
          runs.push(await clusterRun(cluster, language, dir, position, `${warm ? "warm" : "cold"}-${rep}`, warm));
        }
        addRows(language, warm ? "runner+gateway, LSPMESH_WARMUP" : "runner+gateway, no warm-up", runs, baselineP50);
      }
    } finally {
      await cluster.close();
    }
  }
  printTable(
    `cold start: first call → first correct find_definition, ms (${REPS} fresh copies each; start = spawn → URL / runner live / warm-up done (its state in the last column); calls = most calls one run needed; ×baseline = answer p50 / direct p50)`,
    [
      "language",
      "mode",
      "runs",
      "start p50",
      "answer p50",
      "answer max",
      "start+answer p50",
      "calls",
      "×baseline",
      "warm state",
    ],
    rows,
    0,
  );
  results.loadAverage.end = loadavg();
  for (const [language, why] of Object.entries(results.skipped)) console.log(`${language}: skipped, ${why}`);
  console.log(
    `load average (1 min) at start ${results.loadAverage.start[0].toFixed(1)}, at end ${results.loadAverage.end[0].toFixed(1)} (${cpus().length} cores)`,
  );
  writeResult("coldStart", results);
} catch (error) {
  failed = error;
} finally {
  endRun(root, failed);
}
