// CPU time of every process on the machine, from /proc, between two snapshots: which processes of a
// benchmark (lspmesh's own, the language servers under them, nats-server, the bench's clients)
// used the most CPU while the load ran, and how much the rest of the machine used meanwhile (on a
// shared machine, other people's work).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat times. */
export const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** User + system CPU ms of a /proc/<pid>/stat line's process since it started. */
export function statCpuMs(stat) {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
}

/** User + system CPU ms of one process since it started (throws when it is gone). */
export function processCpuMs(pid) {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** { pid: { ms, ppid, comm, cmdline } } for every process now (user + system CPU ms since it started). */
export function processSnapshot() {
  const processes = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      processes.set(Number(name), {
        ms: statCpuMs(stat),
        ppid: Number(fields[1]),
        comm: stat.slice(stat.indexOf("(") + 1, close),
        cmdline,
      });
    } catch {
      // exited meanwhile
    }
  }
  return processes;
}

/** What a process is, by its command line: tsserver, typescript-language-server, nats-server, bwrap, or its comm. */
export function processKind({ comm, cmdline }) {
  if (cmdline.includes("tsserver.js")) return "tsserver";
  if (cmdline.includes("typescript-language-server")) return "typescript-language-server";
  if (comm === "nats-server" || cmdline.includes("nats-server")) return "nats-server";
  if (comm === "bwrap") return "bwrap";
  return comm;
}

/**
 * CPU ms per process of the benchmark between two snapshots, by role: each pid in `roles`
 * ({ pid: "lspmesh gateway", … }) and everything under it (language servers by kind, "<role> other"
 * for the rest), and "rest of the machine" for every other process. Rows sorted by CPU, largest first.
 */
export function cpuByRole(before, after, roles) {
  const roleOf = new Map();
  const assign = (pid, role) => {
    roleOf.set(pid, role);
    for (const [child, info] of after) if (info.ppid === pid && !roleOf.has(child)) assign(child, role);
  };
  // Every named process first, then the trees below them: the bench's own process is the parent of
  // the cluster's, and must not claim the tenant worker under the runner as one of its clients.
  for (const [pid, role] of Object.entries(roles)) roleOf.set(Number(pid), role);
  for (const [pid, role] of Object.entries(roles)) assign(Number(pid), role);
  const totals = new Map();
  for (const [pid, info] of after) {
    const used = info.ms - (before.get(pid)?.ms ?? 0);
    if (used <= 0) continue;
    const role = roleOf.get(pid);
    const name =
      role === undefined
        ? "rest of the machine"
        : roles[pid] !== undefined
          ? role
          : ["tsserver", "typescript-language-server", "bwrap"].includes(processKind(info))
            ? processKind(info)
            : `${role}: ${processKind(info)}`;
    totals.set(name, (totals.get(name) ?? 0) + used);
  }
  return [...totals].map(([name, ms]) => ({ process: name, "cpu ms": ms })).sort((a, b) => b["cpu ms"] - a["cpu ms"]);
}

/** Which is larger: the language servers' CPU (tsserver, typescript-language-server) or lspmesh's processes'. */
export function largestUser(rows) {
  const sum = (test) => rows.filter((row) => test(row.process)).reduce((total, row) => total + row["cpu ms"], 0);
  const languageServers = sum((name) => name === "tsserver" || name === "typescript-language-server");
  const lspmesh = sum((name) => name.startsWith("lspmesh"));
  // The bench's own clients and other people's processes are not what serves the calls.
  const top = rows.find((row) => row.process !== "rest of the machine" && !row.process.startsWith("bench clients"));
  return {
    languageServers,
    lspmesh,
    top: top?.process,
    larger: languageServers >= lspmesh ? "the language servers" : "lspmesh's processes",
  };
}
