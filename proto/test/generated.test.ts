// Fails when src/gen is not what `npm run generate` makes from the .proto sources today.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";

const protoRoot = fileURLToPath(new URL("..", import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), "lspmesh-gen-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

test("committed generated code matches the .proto sources", () => {
  const template = readFileSync(join(protoRoot, "buf.gen.yaml"), "utf8").replace("out: src/gen", `out: ${outDir}`);
  const templatePath = join(outDir, "..", `${outDir.split("/").pop()}.gen.yaml`);
  writeFileSync(templatePath, template);
  try {
    execFileSync("npx", ["buf", "generate", "--template", templatePath], { cwd: protoRoot, stdio: "pipe" });
  } finally {
    rmSync(templatePath, { force: true });
  }
  const committed = join(protoRoot, "src/gen");
  expect(listFiles(outDir)).toEqual(listFiles(committed));
  for (const file of listFiles(outDir)) {
    expect(readFileSync(join(committed, file), "utf8"), `${file} is stale: run npm run generate`).toBe(
      readFileSync(join(outDir, file), "utf8"),
    );
  }
}, 60_000);
