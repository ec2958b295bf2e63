// A git repository built by the test: a base commit on `main` and a head commit on `feature`
// (checked out), with fixed author, committer and dates so that commit ids are the same on every run.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface FixtureRepo extends Disposable {
  /** The repository (head checked out). */
  readonly dir: string;
  /** An empty folder beside it, outside any git repository, for reports. */
  readonly outside: string;
  git(...args: string[]): string;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "lspmesh test",
  GIT_AUTHOR_EMAIL: "test@lspmesh.invalid",
  GIT_AUTHOR_DATE: "2025-01-01T00:00:00Z",
  GIT_COMMITTER_NAME: "lspmesh test",
  GIT_COMMITTER_EMAIL: "test@lspmesh.invalid",
  GIT_COMMITTER_DATE: "2025-01-01T00:00:00Z",
  // No user or system configuration (hooks, signing, default branch) leaks into the fixture.
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: { strict: true, noEmit: true, target: "ES2022", lib: ["ES2022"], types: [], module: "NodeNext" },
    include: ["src"],
  },
  null,
  2,
)}\n`;

/** The base commit: what `main` holds. */
export const BASE_FILES: Record<string, string> = {
  "tsconfig.json": TSCONFIG,
  "README.md": "# fixture\n",
  // An old error; the head edits another line of the file.
  "src/existing.ts": [
    "export function greet(name: string): string {",
    '  return "hello " + name;',
    "}",
    'export const count: number = "three";',
    "",
  ].join("\n"),
  // An old error on line 2; the head inserts three lines above it.
  "src/shifted.ts": ['export const label = "shift";', "export const wrong: string = 42;", ""].join("\n"),
  // An old error the head fixes.
  "src/fixed.ts": 'export const flag: boolean = "yes";\n',
  // Clean in the base; the head introduces an error.
  "src/introduced.ts": "export const total = 1 + 1;\n",
  // An old error in a file the head renames (git mv, content unchanged).
  "src/renamed-old.ts": 'export const moved: number = "moved";\n',
  // Old errors in files the head leaves alone or deletes.
  "src/untouched.ts": 'export const stale: number = "stale";\n',
  "src/deleted.ts": 'export const gone: number = "gone";\n',
};

/** What the head commit changes: new text, a symbolic link, or null to delete. */
export const HEAD_CHANGES: Record<string, string | { link: string } | null> = {
  "README.md": "# fixture\n\nNow with more words.\n",
  "src/existing.ts": `${BASE_FILES["src/existing.ts"]}export const extra = greet("x");\n`,
  "src/shifted.ts": [
    "// a comment",
    'import { greet } from "./existing";',
    'export const hi = greet("there");',
    'export const label = "shift";',
    "export const wrong: string = 42;",
    "",
  ].join("\n"),
  "src/fixed.ts": "export const flag: boolean = true;\n",
  "src/introduced.ts": "export const total = 1 + 1;\nexport const broken: number = total.toUpperCase();\n",
  // Emoji before the error: code-point column 41, UTF-16 column 43.
  "src/emoji.ts": 'export const party = "🎉🎉"; export const n: number = party;\n',
  "src/deleted.ts": null,
  // Links git tracks: one to nothing, one out of the repository (to a file with an error).
  "src/dangling.ts": { link: "no-such-file.ts" },
  "src/outside.ts": { link: "../../outside/secret.ts" },
};

export function fixtureRepo(): FixtureRepo {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "lspmesh-check-")));
  const dir = join(root, "repo");
  const outside = join(root, "outside");
  mkdirSync(dir);
  mkdirSync(outside);
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });
  const write = (files: Record<string, string | { link: string } | null>) => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) {
        rmSync(join(dir, path));
        continue;
      }
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      if (typeof content === "string") writeFileSync(join(dir, path), content);
      else symlinkSync(content.link, join(dir, path));
    }
  };
  writeFileSync(join(outside, "secret.ts"), 'export const secret: number = "not yours";\n');
  git("init", "--quiet", "--initial-branch=main");
  write(BASE_FILES);
  git("add", "--all");
  git("commit", "--quiet", "--message", "base");
  git("checkout", "--quiet", "-b", "feature");
  git("mv", "src/renamed-old.ts", "src/renamed-new.ts");
  write(HEAD_CHANGES);
  git("add", "--all");
  git("commit", "--quiet", "--message", "head");
  return { dir, outside, git, [Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }) };
}
