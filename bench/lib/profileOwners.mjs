// A V8 CPU profile (.cpuprofile) summed by owner: lspmesh's own code (gateway, runner, grpc, …),
// the libraries it runs on (MCP SDK, grpc-js, zod, vscode-jsonrpc, …), Node internals, GC.
// Functions of the CLI's bundle are counted by the source file they were bundled from.
import { readFileSync } from "node:fs";
import { originalSourceOf } from "./bundleSources.mjs";

/** The owner of a profiled function, by its script URL (a bundle's chunk: by the source it came from). */
export function ownerOf({ url, functionName, lineNumber, columnNumber }) {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return `node ${url.slice(5).split("/").slice(0, 2).join("/")}`;
  const path = originalSourceOf(url, lineNumber, columnNumber);
  for (const [marker, owner] of [
    ["/services/gateway/", "lspmesh gateway"],
    ["/services/lsp-runner/", "lspmesh runner"],
    ["/packages/grpc/", "lspmesh grpc adapter"],
    ["/packages/events/", "lspmesh events"],
    ["/packages/service-kit/", "lspmesh service-kit"],
    ["/proto/", "lspmesh proto"],
    ["/apps/cli/", "lspmesh cli"],
  ]) {
    if (path.includes(marker) && !path.includes("/node_modules/")) return owner;
  }
  const modules = path.split("/node_modules/");
  if (modules.length > 1) {
    const parts = modules[modules.length - 1].split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return path;
}

/** A profile summed by owner: { process, busyMs, owners: [[owner, ms]] } (idle excluded). */
export function summarizeProfile(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    selfMs.set(node.id, (selfMs.get(node.id) ?? 0) + ms);
  }
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  // Each function's own owner, looked up once (a bundle's through its source map).
  const frameOwner = new Map(profile.nodes.map((node) => [node.id, ownerOf(node.callFrame)]));
  // A builtin (JSON.parse, a RegExp, a Buffer copy) counts for the code that called it.
  const ownerOfNode = (node) => {
    let owner;
    for (let at = node; at; at = parentOf.get(at.id)) {
      const { url, functionName } = at.callFrame;
      // Starting the profiler itself (lib/cpuProfiler.mjs) is not the load's.
      if (url.endsWith("/cpuProfiler.mjs")) return "(idle)";
      if (!owner && (url || functionName.startsWith("("))) owner = frameOwner.get(at.id);
    }
    return owner ?? "(native)";
  };
  const owners = new Map();
  const ownersSeen = new Set(frameOwner.values());
  const gateway = ownersSeen.has("lspmesh gateway");
  const runner = ownersSeen.has("lspmesh runner");
  const processName =
    gateway && runner ? "lspmesh serve" : gateway ? "lspmesh gateway" : runner ? "lspmesh runner" : "node";
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    if (ms === 0) continue;
    const owner = ownerOfNode(node);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
  }
  owners.delete("(idle)");
  const busyMs = [...owners.values()].reduce((sum, ms) => sum + ms, 0);
  return { process: processName, busyMs, owners: [...owners].sort((a, b) => b[1] - a[1]) };
}
