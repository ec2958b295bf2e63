#!/usr/bin/env node
// Packs the lspmesh command as one tarball that installs anywhere: `npm install -g
// lspmesh-<version>.tgz`. The workspace packages it is made of (not published to any registry)
// are bundled inside; their external dependencies become the tarball's own, pinned to the
// versions installed here. Install it with --ignore-scripts: nothing it needs runs install scripts. Usage: node apps/cli/scripts/packGlobal.mjs [DEST_DIR] (after a build).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI_DIR = join(ROOT, "apps/cli");
const dest = resolve(process.argv[2] ?? process.cwd());

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
    bundleDependencies: [...bundled],
  };
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
