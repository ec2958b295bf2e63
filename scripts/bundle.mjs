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
// Usage: node ../../scripts/bundle.mjs [--each] dist/main.js [more entry files…]
// --each: every entry is bundled alone, with all it imports, and an import of another entry stays
// an import of that entry's bundle. Without it the entries share chunks (esbuild's splitting), but
// splitting keeps a package's whole index reachable from every entry that imports any of it: the
// CLI's `admin` loaded the gateway, MCP SDK, grpc-js and zod (3.8 MB of code, 0.35–0.6 s of CPU
// per start) for the ~0.6 MB it uses (0.1 s). The CLI runs one command per process, so each
// command is one entry of its own (dist/bundle/<command>.js, flat, at the depth of dist/<command>).
import { rmSync } from "node:fs";
import { basename, resolve } from "node:path";
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

const each = process.argv[2] === "--each";
const entries = process.argv.slice(each ? 3 : 2);
if (entries.length === 0) {
  console.error("usage: node scripts/bundle.mjs [--each] ENTRY.js [ENTRY.js…] (run in the package's folder)");
  process.exit(2);
}
const names = new Map(entries.map((entry) => [resolve(entry), basename(entry, ".js")]));
if (new Set(names.values()).size !== names.size) {
  console.error("bundle.mjs: two entries have the same file name; their bundles would overwrite each other");
  process.exit(2);
}
rmSync(OUT_DIR, { recursive: true, force: true });
const options = {
  outdir: OUT_DIR,
  bundle: true,
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
};

/** --each: an import that names another entry loads that entry's bundle, beside this one. */
const otherEntries = {
  name: "other-entries",
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      const name = names.get(resolve(args.resolveDir, args.path));
      return name === undefined ? undefined : { path: `./${name}.js`, external: true };
    });
  },
};

if (each) {
  await Promise.all(
    [...names].map(([entry, name]) => build({ ...options, entryPoints: { [name]: entry }, plugins: [otherEntries] })),
  );
} else {
  const entryPoints = Object.fromEntries([...names].map(([entry, name]) => [name, entry]));
  await build({ ...options, entryPoints, splitting: true });
}
