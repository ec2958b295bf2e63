// Pyright pushes a file's diagnostics as soon as it has parsed and bound it, before its checker has
// run on it: a large module imported by the file being checked is first published with no errors,
// and its real errors come seconds later (seen on pallets/click: core.py, 3 700 lines, published
// clean, then with its error 2.5 s later). A diagnostics answer must be the file's checked result,
// never that first push taken as complete. And an answer given while the server still counts as
// indexing (pyright until its readiness probe passes) says it may be incomplete, as every answer does.
// Long (pyright checks the large module for about 10 s on a 2-core machine): `npm run test:faults`.
import { ServerState } from "@lspmesh/proto";
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, pythonLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

/** Functions in the large module: enough that checking it takes far longer than the push settle window. */
const FUNCTIONS = 1500;

let env: FixtureRunner;

beforeAll(async () => {
  const lines: string[] = ["from typing import TypeVar", "", 'T = TypeVar("T")', ""];
  lines.push("def f0(value: int) -> int:", "    return value + 1", "");
  for (let i = 1; i < FUNCTIONS; i++) {
    lines.push(
      `def f${i}(value: int, items: list[T]) -> tuple[int, list[T]]:`,
      i === 1 ? "    total = f0(value)" : `    total = f${i - 1}(value, items)[0]`,
      "    return total * 2, [item for item in items if item is not None]",
      "",
    );
  }
  // The one error, at the end of the large module.
  lines.push(`LAST: str = f${FUNCTIONS - 1}(1, [1])[0]`, "");
  env = await startFixtureRunner({
    files: {
      "pkg/__init__.py": "",
      "pkg/big.py": lines.join("\n"),
      "pkg/small.py": "from pkg.big import f0\n\n\nanswer: int = f0(1)\n",
      "pyrightconfig.json": JSON.stringify({ include: ["pkg"] }),
    },
    languages: new LanguageRegistry([pythonLanguage()]),
  });
});

afterAll(() => env?.close());

test.runIf(isFaultsTier())(
  "a large module checked beside the file importing it: its error is in the first answer",
  async () => {
    const answer = await env.client.diagnostics({
      workspace: ws,
      files: ["pkg/small.py", "pkg/big.py"],
      waitMs: 60_000,
    });
    const big = answer.files.find((file) => file.file === "pkg/big.py");
    const small = answer.files.find((file) => file.file === "pkg/small.py");
    expect(small).toMatchObject({ fresh: true, diagnostics: [] });
    expect(big?.fresh).toBe(true);
    expect(big?.diagnostics.map((d) => [d.code, d.range?.start?.line])).toEqual([
      ["reportAssignmentType", lastLine(FUNCTIONS)],
    ]);
    // Nothing stale, nothing skipped: partial exactly when the server was not ready yet.
    expect(answer.status?.partial).toBe(answer.status?.state !== ServerState.READY);
  },
);

/** The 1-based line of the `LAST` assignment: 4 header lines, f0's 3, then 4 per function. */
function lastLine(functions: number): number {
  return 4 + 3 + 4 * (functions - 1) + 1;
}
