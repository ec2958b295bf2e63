#!/usr/bin/env node
// The agent's tools on a real repository, through `lspmesh serve` and the official MCP client,
// each against a baseline measured in the same run:
//   - check_edit of a signature change (Context.json's status and init made required, in hono's
//     src/context.ts): time to the delta, warm, p50 over --runs; baseline: the same edit written to
//     disk, then `diagnostics` of the same files (apply-then-diagnostics), then the file restored.
//     The two deltas are compared (agreement = the same new diagnostics, by file, line and message).
//   - search_text: 10 literal and 10 regex queries, p50; baseline: the `rg` binary itself with the
//     same query (the engine without lspmesh).
//   - find_symbol with bodies; baseline: search_symbols of the same name (the index alone).
// Usage: node bench/agentTools.mjs [folder] [--runs 10]   (folder: a copy of honojs/hono, e.g. /work/corpus/hono)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServe } from "@lspmesh/test-kit";
import { callTool, connectMcp, copyWorkspace, corpusFolder, endRun } from "./lib/cluster.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: "string", default: "10" } },
});
const RUNS = Number(values.runs);
const corpus = corpusFolder(positionals[0]);
const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-agent-"));
const workspace = copyWorkspace(corpus.dir, join(root, "ws"));

const EDITED = "src/context.ts";
/** Context.json's overloads with the status / init made required: every `c.json(x)` breaks. */
const SIGNATURE_CHANGE = [
  [
    "    status?: U,\n    headers?: HeaderRecord\n  ): JSONRespondReturn<T, U>",
    "    status: U,\n    headers?: HeaderRecord\n  ): JSONRespondReturn<T, U>",
  ],
  [
    "    init?: ResponseOrInit<U>\n  ): JSONRespondReturn<T, U>",
    "    init: ResponseOrInit<U>\n  ): JSONRespondReturn<T, U>",
  ],
];
const LITERAL_QUERIES = [
  "c.json(",
  "HTTPException",
  "getCookie",
  "app.get(",
  "Content-Type",
  "basicAuth",
  "TypedResponse",
  "validator(",
  "export const",
  "import type",
];
const REGEX_QUERIES = [
  "c\\.json\\(\\{",
  "function \\w+Middleware",
  "status\\(\\d{3}\\)",
  "new Response\\(",
  "export (type|interface) \\w+Env",
  "\\bawait next\\(\\)",
  "app\\.(get|post)\\('/",
  "throw new \\w+Exception",
  "import \\{[^}]*Hono[^}]*\\}",
  "\\.header\\('[A-Z]",
];
const SYMBOLS = ["Context.json", "Hono", "HTTPException", "compose", "getCookie"];

/** The edit in apply_workspace_edit / check_edit shape (1-based lines, code-point columns). */
function signatureEdit(text) {
  const edits = SIGNATURE_CHANGE.map(([from, to]) => {
    const at = text.indexOf(from);
    if (at < 0) throw new Error(`${EDITED} has changed: ${JSON.stringify(from.slice(0, 40))} not found`);
    const start = positionOf(text, at);
    const end = positionOf(text, at + from.length);
    return { line: start.line, column: start.column, end_line: end.line, end_column: end.column, new_text: to };
  });
  return { files: [{ file: EDITED, edits }] };
}

function positionOf(text, offset) {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: [...before.at(-1)].length + 1 };
}

const key = (change) => `${change.file}:${change.line}:${change.message}`;

async function main() {
  const serve = await startServe(workspace, ["--quiet"]);
  const client = await connectMcp(serve.url);
  let failed = false;
  try {
    const original = readFileSync(join(workspace, EDITED), "utf8");
    const edit = signatureEdit(original);
    // Warm: the edited file and its project loaded, the symbol index built.
    await callTool(client, "diagnostics", { files: [EDITED], wait_ms: 60_000 });
    await callTool(client, "search_symbols", { query: "Hono" });

    const checkTimes = [];
    let lastCheck;
    for (let run = 0; run < RUNS + 1; run++) {
      const started = process.hrtime.bigint();
      lastCheck = await callTool(client, "check_edit", { edit, wait_ms: 60_000 });
      if (run > 0) checkTimes.push(elapsedMs(started)); // the first is warm-up
    }
    const checkDelta = lastCheck;
    const checkedFiles = [...checkDelta.edited_files, ...checkDelta.importer_files];
    const newByCheck = new Set(checkDelta.changes.filter((c) => c.state === "new").map(key));

    // Baseline: write, ask diagnostics of the same files, restore.
    const baselineTimes = [];
    let newByApply = new Set();
    const beforeKeys = new Set((await allDiagnostics(client, checkedFiles)).map(key));
    for (let run = 0; run < Math.min(RUNS, 3); run++) {
      const started = process.hrtime.bigint();
      await callTool(client, "apply_workspace_edit", { edit, diagnostics: false });
      const after = await allDiagnostics(client, checkedFiles);
      baselineTimes.push(elapsedMs(started));
      newByApply = new Set(after.map(key).filter((k) => !beforeKeys.has(k)));
      writeFileSync(join(workspace, EDITED), original);
      await callTool(client, "diagnostics", { files: [EDITED], wait_ms: 60_000 });
    }
    const agreeing = [...newByCheck].filter((k) => newByApply.has(k)).length;

    const searchRows = [];
    for (const [kind, queries] of [
      ["literal", LITERAL_QUERIES],
      ["regex", REGEX_QUERIES],
    ]) {
      const mesh = [];
      const direct = [];
      for (const query of queries) {
        let started = process.hrtime.bigint();
        await callTool(client, "search_text", { query, regex: kind === "regex", limit: 50 });
        mesh.push(elapsedMs(started));
        started = process.hrtime.bigint();
        spawnSync("rg", ["--json", ...(kind === "regex" ? [] : ["--fixed-strings"]), "--", query, "."], {
          cwd: workspace,
          maxBuffer: 1 << 28,
        });
        direct.push(elapsedMs(started));
      }
      searchRows.push({
        queries: `${queries.length} ${kind}`,
        "search_text p50": percentiles(mesh).p50,
        "rg p50": percentiles(direct).p50,
        ratio: percentiles(mesh).p50 / percentiles(direct).p50,
      });
    }

    const symbolRows = [];
    for (const name of SYMBOLS) {
      let started = process.hrtime.bigint();
      const found = await callTool(client, "find_symbol", { name, include_body: true, limit: 5 });
      const withBody = elapsedMs(started);
      started = process.hrtime.bigint();
      await callTool(client, "search_symbols", { query: name.split(".").at(-1), limit: 5 });
      const indexOnly = elapsedMs(started);
      symbolRows.push({
        name,
        "find_symbol+body ms": withBody,
        "search_symbols ms": indexOnly,
        ratio: withBody / indexOnly,
        "text KiB": JSON.stringify(found).length / 1024,
      });
    }

    const check = percentiles(checkTimes);
    const baseline = percentiles(baselineTimes);
    printTable(
      `check_edit on ${EDITED} (${checkedFiles.length} files checked, ${checkDelta.importers_not_checked} importers over the cap)`,
      ["path", "p50 ms", "p90 ms", "runs", "new"],
      [
        {
          path: "check_edit (nothing written)",
          "p50 ms": check.p50,
          "p90 ms": check.p90,
          runs: check.count,
          new: newByCheck.size,
        },
        {
          path: "apply + diagnostics (baseline)",
          "p50 ms": baseline.p50,
          "p90 ms": baseline.p90,
          runs: baseline.count,
          new: newByApply.size,
        },
      ],
    );
    console.log(
      `agreement: ${agreeing} of ${newByCheck.size} new diagnostics of check_edit also new after apply; apply found ${newByApply.size}`,
    );
    printTable("search_text against rg alone", ["queries", "search_text p50", "rg p50", "ratio"], searchRows);
    printTable(
      "find_symbol with bodies against search_symbols",
      ["name", "find_symbol+body ms", "search_symbols ms", "ratio", "text KiB"],
      symbolRows,
    );
    writeResult("agentTools", {
      corpus: corpus.dir,
      runs: RUNS,
      check,
      baseline,
      agreeing,
      newByCheck: newByCheck.size,
      newByApply: newByApply.size,
      searchRows,
      symbolRows,
    });
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await client.close();
    await serve.stop();
    endRun(root, failed);
  }
}

/** Every diagnostic of the files, all pages (the diagnostics tool lists a page at a time). */
async function allDiagnostics(client, files) {
  const found = [];
  let offset = 0;
  for (;;) {
    const page = await callTool(client, "diagnostics", {
      files,
      wait_ms: 60_000,
      severity: "hint",
      limit: 500,
      offset,
    });
    found.push(...flatten(page));
    if (page.next_offset === undefined) return found;
    offset = page.next_offset;
  }
}

function flatten(diagnosticsAnswer) {
  return diagnosticsAnswer.files.flatMap((file) =>
    file.diagnostics.map((d) => ({ file: file.file, line: d.line, message: d.message })),
  );
}

await main();
