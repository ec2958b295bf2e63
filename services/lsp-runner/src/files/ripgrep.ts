// The ripgrep binary (`rg`, Debian/Homebrew package `ripgrep`) run over a workspace: the engine
// behind search_text and list_files. It honours .gitignore/.ignore, skips binary files and never
// follows symlinks (no -L); it runs with no config file and no inherited environment, in the
// workspace root, and is killed when the caller gives up or enough output has arrived.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { RunnerError } from "../errors.js";
import { findExecutable } from "../lsp/process/commandLookup.js";
import { DEFAULT_MAX_FILE_BYTES } from "../lsp/session/serverDocuments.js";

/** Per-file size above which ripgrep does not look into a file, bytes (the documents' limit, 4 MiB). */
export const RIPGREP_MAX_FILESIZE = String(DEFAULT_MAX_FILE_BYTES);

/** Where rg is, looked up on PATH once; undefined when it is not installed. */
let located: string | undefined | null = null;

export function ripgrepPath(): string {
  if (located === null) located = findExecutable("rg", process.env.PATH);
  if (located === undefined) {
    throw new RunnerError(
      "UNSUPPORTED",
      "search_text and list_files need ripgrep on the runner: install it (apt-get install ripgrep, brew install ripgrep) and restart the runner",
    );
  }
  return located;
}

export interface RipgrepRun {
  cwd: string;
  args: readonly string[];
  /** Each line of output; return false to stop (rg is killed, the run counts as stopped). */
  onLine(line: string): boolean;
  signal?: AbortSignal | undefined;
}

/** How a run ended: stopped (by onLine or the signal) before rg had finished, and rg's stderr. */
export interface RipgrepOutcome {
  stopped: boolean;
  stderr: string;
}

/**
 * Runs rg and feeds its stdout line by line. Exit status 1 (no match) is success; status 2 with
 * output means some files could not be read (reported in stderr, kept for the note); a regex rg
 * refuses is INVALID_ARGUMENT with rg's own words.
 */
export function runRipgrep({ cwd, args, onLine, signal }: RipgrepRun): Promise<RipgrepOutcome> {
  // spawn throws on a NUL in an argument: refused as the caller's input, not a runner failure.
  if (args.some((arg) => arg.includes("\0"))) {
    return Promise.reject(new RunnerError("INVALID_ARGUMENT", "the request holds a NUL character; remove it"));
  }
  const child = spawn(ripgrepPath(), ["--no-config", ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stopped = false;
  let stderr = "";
  const stop = () => {
    if (stopped) return;
    stopped = true;
    child.kill("SIGKILL");
  };
  if (signal?.aborted) stop();
  signal?.addEventListener("abort", stop, { once: true });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on("line", (line) => {
    if (!stopped && !onLine(line)) stop();
  });
  return new Promise((resolve, reject) => {
    child.on("error", (error) => {
      signal?.removeEventListener("abort", stop);
      reject(new RunnerError("UNSUPPORTED", `ripgrep could not be started: ${error.message}`));
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) {
        reject(new RunnerError("TIMEOUT", "the search was cancelled or ran out of time; narrow it with path globs"));
        return;
      }
      if (
        !stopped &&
        code === 2 &&
        /regex parse error|error parsing glob|unrecognized|not allowed in a regex/i.test(stderr)
      ) {
        reject(
          new RunnerError(
            "INVALID_ARGUMENT",
            regexProblem(stderr) ?? `ripgrep refused the query: ${firstLines(stderr)}`,
          ),
        );
        return;
      }
      resolve({ stopped, stderr });
    });
  });
}

/** Globs a caller gives, checked: relative, never leaving the workspace. */
export function globArguments(globs: readonly string[]): string[] {
  return globs.flatMap((glob) => {
    const pattern = glob.startsWith("!") ? glob.slice(1) : glob;
    if (pattern.trim() === "")
      throw new RunnerError("INVALID_ARGUMENT", "an empty glob; give a pattern such as src/**/*.ts");
    if ([...glob].some((char) => char.charCodeAt(0) < 0x20)) {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        "a glob holds a control character (NUL, line break, …); give a plain path pattern",
      );
    }
    if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
      throw new RunnerError(
        "OUTSIDE_WORKSPACE",
        `glob '${glob}' leaves the workspace; give a workspace-relative pattern`,
      );
    }
    return ["--glob", glob];
  });
}

/**
 * What every run passes: hidden files too, but never .git; ignore files unless asked (.gitignore
 * too in a workspace that is not a git checkout: --no-require-git). Searches add the size cap
 * (RIPGREP_MAX_FILESIZE): with --files it would hide large files from the listing.
 */
export function commonArguments(includeIgnored: boolean): string[] {
  return ["--hidden", "--no-require-git", "--glob", "!.git", ...(includeIgnored ? ["--no-ignore"] : [])];
}

/**
 * ripgrep's regex error as one line: its reason and where in the pattern, from the caret it draws
 * under the pattern (`regex parse error:` / `    pattern` / `       ^` / `error: unclosed group`).
 */
export function regexProblem(stderr: string): string | undefined {
  const lines = stderr.split("\n");
  const start = lines.findIndex((line) => /^regex parse error:/.test(line.trim()));
  if (start < 0) return undefined;
  const pattern = lines[start + 1] ?? "";
  const caret = lines[start + 2] ?? "";
  const reason = lines.slice(start + 1).find((line) => line.startsWith("error:"));
  if (!reason || !/^\s*\^+\s*$/.test(caret)) return undefined;
  const indent = pattern.length - pattern.trimStart().length;
  const at = caret.indexOf("^") - indent + 1;
  return `the query is not a valid regex: ${reason.slice("error:".length).trim()} at character ${at} of '${pattern.trim()}'; escape the special characters, or search literally (regex: false)`;
}

function firstLines(text: string): string {
  return text.trim().split("\n").slice(0, 6).join(" ").slice(0, 500);
}

export interface FileWalk {
  root: string;
  includeIgnored: boolean;
  globs: readonly string[];
  /** Leave out files over RIPGREP_MAX_FILESIZE, as a search does. */
  sizeCapped?: boolean;
  signal?: AbortSignal | undefined;
  /** Each workspace-relative path; return false to stop. */
  onFile(path: string): boolean;
}

/** The workspace's files as the listing and the search walk them (`rg --files`: no contents read). */
export function walkFiles({ root, includeIgnored, globs, sizeCapped = false, signal, onFile }: FileWalk) {
  return runRipgrep({
    cwd: root,
    args: [
      "--files",
      ...commonArguments(includeIgnored),
      ...(sizeCapped ? ["--max-filesize", RIPGREP_MAX_FILESIZE] : []),
      ...globArguments(globs),
    ],
    signal,
    onLine: (line) => line === "" || onFile(line.replace(/^\.\//, "")),
  });
}
