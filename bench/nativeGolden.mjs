#!/usr/bin/env node
// Golden answers for the native-language servers (C/C++ through clangd, Go through gopls) on a
// real project: every query asked of the server directly (the baseline, once its indexing has
// ended) and of `lspmesh serve` on a fresh copy, cold (each query once, as soon as serve is up)
// and warm (again, after the cold pass), each pass compared with the same pass direct. Prints, per operation, how many answers equal the direct
// server's, and of the rest how many were labelled partial: warm must be 100 % equal, cold either
// equal or partial (0 wrong-unlabelled).
// Queries: uses (in .c / .go files) of functions and macros the project declares (a C header's
// prototypes and #defines; a Go package's top-level funcs), spread over files by a seed.
// Operations: find_definition and find_references (declaration included; every page).
// Usage: node bench/nativeGolden.mjs DIR [--language cpp|go] [--queries 30] [--seed 1] [--direct-runs 3]
//   cpp needs DIR/compile_commands.json or DIR/build/compile_commands.json (absolute directories).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { languageServers } from "@lspmesh/lsp-runner";
import { startServe } from "@lspmesh/test-kit";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js";
import { callTool, connectMcp, copyWorkspace } from "./lib/cluster.mjs";
import { seededRandom } from "./lib/queries.mjs";
import { printTable, writeResult } from "./lib/stats.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    language: { type: "string", default: "cpp" },
    queries: { type: "string", default: "30" },
    seed: { type: "string", default: "1" },
    "direct-runs": { type: "string", default: "3" },
  },
});
const folder = resolve(positionals[0] ?? "");
if (!positionals[0]) throw new Error("usage: node bench/nativeGolden.mjs DIR [--language cpp|go]");
const language = values.language;

/** The server as the runner starts it (its arguments are the runner's own, below). */
const SERVERS = {
  cpp: {
    command: "clangd",
    uses: /\.(c|cc|cpp|cxx)$/,
    declarations: /\.(h|hh|hpp)$/,
    languageId: (file) => (file.endsWith(".c") ? "c" : "cpp"),
  },
  go: {
    command: "gopls",
    uses: /\.go$/,
    declarations: /\.go$/,
    languageId: () => "go",
  },
};
const server = SERVERS[language];
if (!server) throw new Error(`--language cpp or go, not ${language}`);
// The arguments the runner starts the server with, so both sides run the same server.
server.args = (await languageServers()).find((served) => served.id === language)?.args ?? [];

/** The longest the direct server may index before the run gives up, ms. */
const INDEX_TIMEOUT_MS = 600_000;
/** Quiet time after the last progress before the direct server counts as done, ms. */
const QUIET_MS = 3_000;

function sourceFiles(dir, pattern) {
  const files = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "build" || entry.name === "vendor") continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && pattern.test(entry.name)) files.push(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return files.sort();
}

/** Names the project declares: C prototypes and #defines in headers, Go top-level funcs. */
function declaredNames(dir) {
  const names = new Set();
  for (const file of sourceFiles(dir, server.declarations)) {
    const text = readFileSync(join(dir, file), "utf8");
    const patterns =
      language === "go"
        ? [/^func (?:\([^)]*\) )?([A-Za-z_]\w*)\s*[[(]/gm]
        : [/^\s*#\s*define\s+([A-Za-z_]\w*)/gm, /^[A-Za-z_][\w\s*()]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*;/gm];
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) names.add(match[1]);
  }
  for (const keyword of ["if", "for", "while", "return", "sizeof", "switch", "main", "init"]) names.delete(keyword);
  return names;
}

/** Uses of declared names outside comments and strings (a line-level approximation), one per name. */
function goldenQueries(dir, count, seed) {
  const names = declaredNames(dir);
  const candidates = [];
  for (const file of sourceFiles(dir, server.uses)) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    for (const [index, text] of lines.entries()) {
      const code = text.replace(/\/\/.*$/, "").replace(/"(?:[^"\\]|\\.)*"/g, (s) => " ".repeat(s.length));
      if (/^\s*(\*|\/\*|#\s*(define|include))/.test(code)) continue;
      for (const match of code.matchAll(/\b[A-Za-z_]\w*\b/g)) {
        if (!names.has(match[0])) continue;
        // ASCII sources here: the column in code points equals the UTF-16 character + 1.
        candidates.push({ file, name: match[0], line: index + 1, column: match.index + 1 });
      }
    }
  }
  const random = seededRandom(seed);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  const seen = new Set();
  return candidates.filter((q) => !seen.has(q.name) && seen.add(q.name)).slice(0, count);
}

/** The server over stdio on `dir`, initialized; ready() resolves once its progress has been quiet QUIET_MS. */
async function startDirect(dir) {
  const child = spawn(server.command, server.args, { cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const open = new Set();
  let lastProgress = Date.now();
  let active = 0;
  connection.onRequest((method, params) =>
    method === "workspace/configuration" ? (params?.items ?? []).map(() => null) : null,
  );
  connection.onNotification("$/progress", ({ value }) => {
    lastProgress = Date.now();
    if (value.kind === "begin") active++;
    if (value.kind === "end") active--;
  });
  connection.onNotification(() => {});
  connection.listen();
  const rootUri = pathToFileURL(dir).href;
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "workspace" }],
    capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true, workspaceFolders: true } },
  });
  await connection.sendNotification("initialized", {});
  const uriOf = (file) => pathToFileURL(join(dir, file)).href;
  const ensureOpen = (file) => {
    if (open.has(file)) return;
    open.add(file);
    void connection.sendNotification("textDocument/didOpen", {
      textDocument: {
        uri: uriOf(file),
        languageId: server.languageId(file),
        version: 1,
        text: readFileSync(join(dir, file), "utf8"),
      },
    });
  };
  return {
    async ask(operation, query) {
      ensureOpen(query.file);
      const params = {
        textDocument: { uri: uriOf(query.file) },
        position: { line: query.line - 1, character: query.column - 1 },
      };
      const result =
        operation === "definition"
          ? await connection.sendRequest("textDocument/definition", params)
          : await connection.sendRequest("textDocument/references", {
              ...params,
              context: { includeDeclaration: true },
            });
      const list = Array.isArray(result) ? result : result ? [result] : [];
      return list
        .map((l) => {
          const uri = l.targetUri ?? l.uri;
          const range = l.targetSelectionRange ?? l.range;
          const path = decodeURIComponent(new URL(uri).pathname);
          // Outside the workspace (the Go standard library): absolute, as lspmesh names it.
          const inside = relative(dir, path).split(sep).join("/");
          return `${inside.startsWith("../") ? path : inside}:${range.start.line + 1}:${range.start.character + 1}`;
        })
        .sort();
    },
    async ready(first) {
      ensureOpen(first.file);
      const deadline = Date.now() + INDEX_TIMEOUT_MS;
      // The index starts after the first file opens; it is done once no progress is open and none came for QUIET_MS.
      while (active > 0 || Date.now() - lastProgress < QUIET_MS) {
        if (Date.now() > deadline) throw new Error("the direct server kept indexing");
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async close() {
      await Promise.race([connection.sendRequest("shutdown"), new Promise((r) => setTimeout(r, 5000))]).catch(() => {});
      child.kill("SIGKILL");
      connection.dispose();
    },
  };
}

/** Every location of a tool answer, all pages. */
async function askServe(client, operation, query) {
  const args = { file: query.file, line: query.line, column: query.column };
  if (operation === "definition") {
    const answer = await callTool(client, "find_definition", args);
    return { places: (answer.locations ?? []).map((l) => `${l.file}:${l.line}:${l.column}`).sort(), answer };
  }
  const places = [];
  let offset = 0;
  let first;
  for (;;) {
    const answer = await callTool(client, "find_references", {
      ...args,
      include_declaration: true,
      limit: 5000,
      offset,
    });
    first ??= answer;
    places.push(...(answer.locations ?? []).map((l) => `${l.file}:${l.line}:${l.column}`));
    if (answer.next_offset === undefined) break;
    offset = answer.next_offset;
  }
  return { places: places.sort(), answer: first };
}

/** A copy of the project whose compile databases name the copy's paths (clangd reads absolute ones). */
function copyProject(to) {
  copyWorkspace(folder, to);
  rmSync(join(to, ".cache"), { recursive: true, force: true });
  for (const database of ["compile_commands.json", "build/compile_commands.json"]) {
    const path = join(to, database);
    if (existsSync(path)) writeFileSync(path, readFileSync(path, "utf8").replaceAll(folder, to));
  }
  return to;
}

const work = mkdtempSync(join(tmpdir(), "lspmesh-golden-"));
const OPERATIONS = ["definition", "references"];
try {
  const queries = goldenQueries(folder, Number(values.queries), Number(values.seed));
  if (queries.length === 0) throw new Error(`no queries found in ${folder}`);
  console.log(
    `${language}: ${queries.length} queries in ${new Set(queries.map((q) => q.file)).size} files of ${folder}`,
  );

  // Baseline: the server directly, on its own copy, once its index is built, in --direct-runs
  // separate processes: gopls's answers to some questions vary between processes (whether an
  // interface call in a test file is a reference of a concrete method depends on the order it
  // type-checked packages in), so an answer equal to any run's is equal to the server's.
  // Two passes per run, as through serve: clangd's answers also depend on the files open (they add
  // what its index lacks, e.g. files outside the compile database), so cold is compared with cold.
  /** key → the distinct direct answers (JSON) of every run. */
  const expected = new Map();
  for (let run = 0; run < Number(values["direct-runs"]); run++) {
    const directDir = copyProject(join(work, `direct-${run}`));
    const direct = await startDirect(directDir);
    try {
      await direct.ready(queries[0]);
      for (const pass of ["cold", "warm"])
        for (const query of queries)
          for (const operation of OPERATIONS) {
            // A position the server finds no identifier at (the text scan is approximate) is dropped.
            const answer = await direct.ask(operation, query).catch(() => undefined);
            if (answer === undefined) query.dropped = true;
            else {
              const key = `${pass} ${operation} ${query.file}:${query.line}:${query.column}`;
              const answers = expected.get(key) ?? new Set();
              expected.set(key, answers.add(JSON.stringify(answer)));
            }
          }
    } finally {
      await direct.close();
      rmSync(directDir, { recursive: true, force: true });
    }
  }
  const varied = [...expected].filter(([, answers]) => answers.size > 1).map(([key]) => key);
  if (varied.length > 0) console.log(`the direct server answered differently between runs: ${varied.join(", ")}`);

  const asked = queries.filter((query) => !query.dropped);
  if (asked.length < queries.length)
    console.log(`${queries.length - asked.length} queries dropped: no identifier there`);
  queries.splice(0, queries.length, ...asked);

  // lspmesh serve on a fresh copy: cold (as soon as it is up), then warm.
  const serveDir = copyProject(join(work, "serve"));
  const serve = await startServe(serveDir, ["--quiet"]);
  const client = await connectMcp(serve.url);
  const rows = [];
  const outcomes = {};
  try {
    for (const pass of ["cold", "warm"]) {
      for (const operation of OPERATIONS) outcomes[`${pass} ${operation}`] = { equal: 0, partial: 0, wrong: [] };
      for (const query of queries) {
        for (const operation of OPERATIONS) {
          const key = `${pass} ${operation} ${query.file}:${query.line}:${query.column}`;
          const { places, answer } = await askServe(client, operation, query);
          const outcome = outcomes[`${pass} ${operation}`];
          const answers = expected.get(key);
          if (answers.has(JSON.stringify(places))) outcome.equal++;
          else if (answer.partial) outcome.partial++;
          else {
            const direct = JSON.parse([...answers][0]);
            outcome.wrong.push({
              key,
              name: query.name,
              direct: direct.length,
              serve: places.length,
              onlyDirect: direct.filter((p) => !places.includes(p)).slice(0, 3),
              onlyServe: places.filter((p) => !direct.includes(p)).slice(0, 3),
            });
          }
        }
      }
    }
  } finally {
    await client.close();
    await serve.stop();
  }
  for (const [name, outcome] of Object.entries(outcomes)) {
    rows.push({
      "pass / operation": name,
      queries: queries.length,
      "equal to direct": outcome.equal,
      "different, partial": outcome.partial,
      "different, unlabelled": outcome.wrong.length,
    });
  }
  printTable(
    `${language}: lspmesh serve against the server directly`,
    ["pass / operation", "queries", "equal to direct", "different, partial", "different, unlabelled"],
    rows,
    0,
  );
  for (const [name, outcome] of Object.entries(outcomes))
    for (const wrong of outcome.wrong.slice(0, 5))
      console.log(
        `  ${name} WRONG ${wrong.key} (${wrong.name}): direct ${wrong.direct}, serve ${wrong.serve}; only direct ${wrong.onlyDirect.join(" ")}; only serve ${wrong.onlyServe.join(" ")}`,
      );
  writeResult(`nativeGolden-${language}`, {
    folder,
    language,
    queries: queries.map((q) => `${q.file}:${q.line}:${q.column} ${q.name}`),
    directVaried: varied,
    outcomes,
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
