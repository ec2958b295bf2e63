#!/usr/bin/env node
// Packs the lspmesh command as one tarball that installs anywhere: `npm install -g
// lspmesh-<version>.tgz`. The workspace packages it is made of (not published to any registry)
// are bundled inside; their external dependencies become the tarball's own, pinned to the
// versions installed here, and with --self-contained every package they need (the closure package-lock
// gives, copied from node_modules) is bundled too: the install then asks no registry for anything,
// works offline, and installs exactly what the tests ran. Install it with --ignore-scripts: nothing
// it needs runs install scripts.
// Usage: node apps/cli/scripts/packGlobal.mjs [--self-contained] [DEST_DIR] (after a build).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI_DIR = join(ROOT, "apps/cli");
const args = process.argv.slice(2);
const selfContained = args.includes("--self-contained");
const dest = resolve(args.find((arg) => !arg.startsWith("--")) ?? process.cwd());

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const rootManifest = readJson(join(ROOT, "package.json"));

/** Workspace package name → its folder. */
const workspaces = new Map();
for (const pattern of rootManifest.workspaces) {
  const dirs = pattern.endsWith("/*")
    ? execFileSync("ls", [join(ROOT, pattern.slice(0, -2))], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map((name) => join(ROOT, pattern.slice(0, -2), name))
    : [join(ROOT, pattern)];
  for (const dir of dirs) {
    if (existsSync(join(dir, "package.json"))) workspaces.set(readJson(join(dir, "package.json")).name, dir);
  }
}

const cli = readJson(join(CLI_DIR, "package.json"));
const bundled = new Set();
const external = {};
const visit = (manifest) => {
  for (const [name, spec] of Object.entries(manifest.dependencies ?? {})) {
    if (workspaces.has(name)) {
      if (bundled.has(name)) continue;
      bundled.add(name);
      visit(readJson(join(workspaces.get(name), "package.json")));
    } else if (!(name in external)) {
      // The version installed here (what the tests ran against); aliases stay as written.
      external[name] = spec.startsWith("npm:")
        ? spec
        : readJson(join(ROOT, "node_modules", name, "package.json")).version;
    }
  }
};
visit(cli);

/**
 * The node_modules paths the external dependencies need, as package-lock lays them out (a closed
 * subset of a valid layout is a valid layout).
 */
const dependencyClosure = () => {
  const lock = readJson(join(ROOT, "package-lock.json")).packages;
  const locate = (from, name) => {
    for (let base = from; ; ) {
      const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
      if (lock[candidate] && !lock[candidate].link) return candidate;
      if (!base) return undefined;
      const parent = base.lastIndexOf("/node_modules/");
      base = parent < 0 ? "" : base.slice(0, parent);
    }
  };
  const taken = new Set();
  const take = (from, name, optional) => {
    const found = locate(from, name);
    // Optional packages for other platforms are in the lock but not installed here.
    const path = found && (existsSync(join(ROOT, found)) || !optional) ? found : undefined;
    if (!path) {
      if (optional) return;
      throw new Error(`packGlobal: ${name} (needed by ${from || "lspmesh"}) is not in package-lock.json`);
    }
    if (taken.has(path)) return;
    const entry = lock[path];
    taken.add(path);
    for (const dep of Object.keys(entry.dependencies ?? {})) take(path, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) take(path, dep, true);
    for (const [dep, spec] of Object.entries(entry.peerDependencies ?? {})) {
      take(path, dep, entry.peerDependenciesMeta?.[dep]?.optional === true || !spec);
    }
  };
  for (const name of Object.keys(external)) take("", name, false);
  return taken;
};

const staging = mkdtempSync(join(tmpdir(), "lspmesh-pack-"));
try {
  for (const part of ["bin", "dist"]) cpSync(join(CLI_DIR, part), join(staging, part), { recursive: true });
  for (const name of bundled) {
    const from = workspaces.get(name);
    const to = join(staging, "node_modules", name);
    mkdirSync(to, { recursive: true });
    cpSync(join(from, "dist"), join(to, "dist"), { recursive: true });
    // No dependencies of their own: npm takes the dependencies of bundled packages to be in the
    // bundle too and would leave them empty. They are the tarball's, found one folder up.
    const {
      devDependencies,
      dependencies,
      scripts,
      private: _private,
      ...manifest
    } = readJson(join(from, "package.json"));
    writeFileSync(join(to, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  const manifest = {
    name: cli.name,
    version: cli.version,
    description: cli.description,
    license: rootManifest.license,
    type: "module",
    bin: cli.bin,
    engines: rootManifest.engines,
    files: ["bin", "dist"],
    dependencies: { ...external, ...Object.fromEntries([...bundled].map((name) => [name, cli.version])) },
    bundleDependencies: [...bundled, ...(selfContained ? Object.keys(external) : [])],
  };
  if (selfContained) {
    // Top-level folders carry their nested node_modules with them.
    const topLevel = new Set([...dependencyClosure()].map((path) => path.split("/node_modules/")[0]));
    for (const path of topLevel) cpSync(join(ROOT, path), join(staging, path), { recursive: true });
    const bundledNames = [...topLevel].map((path) => path.slice("node_modules/".length));
    manifest.bundleDependencies = [...new Set([...manifest.bundleDependencies, ...bundledNames])];
  }
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  mkdirSync(dest, { recursive: true });
  const packed = execFileSync("npm", ["pack", "--pack-destination", dest, "--silent"], {
    cwd: staging,
    encoding: "utf8",
  }).trim();
  console.log(join(dest, packed.split("\n").at(-1)));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
