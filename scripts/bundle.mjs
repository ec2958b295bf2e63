#!/usr/bin/env node
// Bundles a package's compiled entry points with everything they import (workspace packages and
// npm dependencies) into <package>/dist/bundle/: one module per entry plus shared chunks. A Node
// process then reads a few dozen files instead of resolving and linking about a thousand modules
// (`lspmesh check --bogus` 1.1 → 0.45 s of CPU; a tenant worker's start 1.25 → 0.3 s), and the
// tests start hundreds of both. Run by the builds of apps/cli (the `lspmesh` command) and
// services/lsp-runner (its tenant worker), with the package as the working folder.
// Left outside the bundle, loaded from node_modules as before:
// - what runs as a process of its own or is found by path: the language servers
//   (typescript-language-server, pyright, typescript-native's tsgo, tsserver) and the runner's
//   confinement launcher and tsserver plugin guard (found through the runner's package name,
//   services/lsp-runner/src/runnerFiles.ts, never relative to the module running);
// - what reads files next to its own at run time (grpc-health-check its .proto), native code
//   (koffi), and the TypeScript compiler (9 MB, required on first use by the symbol index).
// Usage: node ../../scripts/bundle.mjs dist/main.js [more entry files…]
import { rmSync } from "node:fs";
import { basename } from "node:path";
import { build } from "esbuild";

const EXTERNAL = [
  "typescript",
  "typescript-native",
  "typescript-language-server",
  "pyright",
  "koffi",
  "grpc-health-check",
  "@grpc/proto-loader",
];
const OUT_DIR = "dist/bundle";

const entries = process.argv.slice(2);
if (entries.length === 0) {
  console.error("usage: node scripts/bundle.mjs ENTRY.js [ENTRY.js…] (run in the package's folder)");
  process.exit(2);
}
rmSync(OUT_DIR, { recursive: true, force: true });
await build({
  entryPoints: Object.fromEntries(entries.map((entry) => [basename(entry, ".js"), entry])),
  outdir: OUT_DIR,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  external: EXTERNAL,
  // CommonJS dependencies bundled into ES modules still call require() (for node: built-ins).
  banner: {
    js: "import { createRequire as __lspmeshRequire } from 'node:module'; const require = __lspmeshRequire(import.meta.url);",
  },
  sourcemap: "linked",
  // Warnings about code paths never taken (grpc-js's xDS protos) would be noise in every build.
  logLevel: "error",
});
