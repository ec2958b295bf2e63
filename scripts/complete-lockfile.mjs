#!/usr/bin/env node
// The registry reachable from our machines serves only linux-x64 builds of packages that ship
// native binaries per platform (biome, turbo, buf). npm then writes a lockfile without the other
// platforms' optional packages, and `npm ci` refuses it as "out of sync". This adds those
// entries back with their os/cpu/libc constraints, so npm ci skips them here and fetches them
// on other platforms. Run after `npm install`: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const LOCK = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, "utf8"));

const OS = { win32: "win32", windows: "win32", darwin: "darwin", linux: "linux", android: "android", freebsd: "freebsd" };
const CPU = { x64: "x64", 64: "x64", arm64: "arm64", aarch64: "arm64", armv7: "arm", ia32: "ia32" };

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.map((p) => OS[p]).find(Boolean);
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os || !cpu) return undefined;
  return { os: [os], cpu: [cpu], ...(parts.includes("musl") ? { libc: ["musl"] } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || lock.packages[`${path}/${key}`]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    lock.packages[key] = { version, ...platform, optional: true };
    added++;
  }
}
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform package entries`);
