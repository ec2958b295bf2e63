// What every benchmark prints and keeps: latency percentiles, an aligned table, and a JSON file in
// bench/results/ named after the script and the time it ran, with the machine it ran on.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, freemem, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RESULTS_DIR = fileURLToPath(new URL("../results/", import.meta.url));

/** Milliseconds since `start` (a process.hrtime.bigint() value). */
export function elapsedMs(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** p50/p90/p99/mean/max of latency samples in ms (the samples are sorted in place). */
export function percentiles(samples) {
  if (samples.length === 0)
    return { count: 0, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, mean: Number.NaN, max: Number.NaN };
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return { count: samples.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean, max: samples[samples.length - 1] };
}

/** Prints rows (objects) as an aligned table with the given columns; numbers get `digits` decimals. */
export function printTable(title, columns, rows, digits = 2) {
  const cell = (value) =>
    typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(digits) : "-") : String(value ?? "");
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  console.log(`\n${title}`);
  console.log(columns.map((column, i) => column.padEnd(widths[i])).join("  "));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(columns.map((column, i) => cell(row[column]).padStart(widths[i])).join("  "));
}

/** The machine a figure was measured on. */
export function machine() {
  const cores = cpus();
  return {
    cpu: cores[0]?.model ?? "unknown",
    cores: cores.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/** Writes bench/results/<name>-<timestamp>.json with the machine and date; returns its path. */
export function writeResult(name, data) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const date = new Date().toISOString();
  const file = join(RESULTS_DIR, `${name}-${date.replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ benchmark: name, date, machine: machine(), argv: process.argv.slice(2), ...data }, null, 2)}\n`,
  );
  console.log(`\nresults: ${file}`);
  return file;
}
