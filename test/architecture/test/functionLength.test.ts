// Size limits that keep the code readable where every next feature goes through: no function in a
// package's src/ over 100 lines (split it into named steps), and the language session, which
// every request passes, under 350 lines.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Lines a function may take at most, signature to closing brace. */
const MAX_FUNCTION_LINES = 100;
const MAX_SESSION_LINES = 350;

/** Tracked and new TypeScript under a package's src/, tests and generated code left out. */
function sourceFiles(): string[] {
  const listed = execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "--", "*/src/*.ts", "*/*/src/*.ts"],
    { cwd: ROOT, encoding: "utf8" },
  );
  return listed
    .split("\n")
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".d.ts"))
    .filter((file) => !file.includes("/gen/") && !file.startsWith("test/") && !file.startsWith("bench/"))
    .filter((file) => existsSync(join(ROOT, file)));
}

function functionLengths(file: string): Array<{ lines: number; where: string }> {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const found: Array<{ lines: number; where: string }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      found.push({ lines: end - start + 1, where: `${file}:${start + 1}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`no function in src/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
  const files = sourceFiles();
  expect(files.length).toBeGreaterThan(100);
  const long = files
    .flatMap(functionLengths)
    .filter(({ lines }) => lines > MAX_FUNCTION_LINES)
    .map(({ lines, where }) => `${where} (${lines} lines)`);
  expect(long).toEqual([]);
});

test(`the language session is under ${MAX_SESSION_LINES} lines`, () => {
  const text = readFileSync(join(ROOT, "services/lsp-runner/src/lsp/session/languageSession.ts"), "utf8");
  expect(text.split("\n").length).toBeLessThan(MAX_SESSION_LINES);
});
