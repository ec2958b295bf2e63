// The suite runs on the Node.js the project requires (package.json engines): where the system's
// Node is older, npm ci brings the pinned one from the npm package `node`, and npm scripts use it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const manifest = JSON.parse(readFileSync(fileURLToPath(new URL("../../../package.json", import.meta.url)), "utf8")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

test("tests run on the Node.js major the engines field requires, the one the `node` package pins", () => {
  const required = Number(/>=\s*(\d+)/.exec(manifest.engines.node)?.[1]);
  const major = Number(process.versions.node.split(".")[0]);
  expect(major).toBeGreaterThanOrEqual(required);
  expect(Number(manifest.devDependencies.node?.split(".")[0])).toBe(required);
});
