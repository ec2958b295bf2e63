// The git questions a check asks, answered by the `git` command in the checkout. Paths are
// relative to the checked folder (which may be a subfolder of the repository), POSIX style.
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { UsageError } from "../usage.js";
import { CheckError } from "./source.js";

const execFileAsync = promisify(execFile);
/** Largest git output read, in bytes (file lists of very large repositories). */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

export interface FileChange {
  /** Path in the working tree (head). */
  file: string;
  /** Path in the base when git saw a rename or copy. */
  baseFile?: string;
  /** git's status letter: A added, M modified, R renamed, C copied, T type changed. */
  status: string;
}

export class Git {
  private constructor(
    /** The checked folder. */
    readonly cwd: string,
    /** Repository root. */
    readonly root: string,
    /** The checked folder relative to the root, "" or ending in "/". */
    readonly prefix: string,
  ) {}

  /** The repository holding `dir`; undefined when `dir` is not in a git work tree. */
  static async open(dir: string): Promise<Git | undefined> {
    const output = await run(dir, ["rev-parse", "--show-toplevel", "--show-prefix"]).catch(() => undefined);
    if (output === undefined) return undefined;
    const [root = dir, prefix = ""] = output.split("\n");
    return new Git(dir, root, prefix);
  }

  /** The commit a check compares with: where HEAD forked from `ref` (their merge base). */
  async forkPoint(ref: string, flag: string): Promise<string> {
    const commit = await run(this.cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).catch(() => "");
    if (!commit) {
      throw new UsageError(
        `${flag}: unknown git ref '${ref}'. Fetch it first (e.g. git fetch origin main; in GitHub Actions use actions/checkout with fetch-depth: 0)`,
      );
    }
    const base = await run(this.cwd, ["merge-base", "HEAD", commit.trim()]).catch(() => "");
    if (!base) {
      throw new UsageError(
        `${flag}: '${ref}' and HEAD share no history here; a shallow clone is the usual cause (fetch with more depth, or fetch-depth: 0)`,
      );
    }
    return base.trim();
  }

  /**
   * Files that differ between `commit` and the working tree (committed or not, plus untracked
   * files), renames followed. Deleted files are left out: there is nothing to check.
   */
  async changesSince(commit: string): Promise<FileChange[]> {
    const fields = splitZ(await run(this.cwd, ["diff", "--name-status", "-z", "-M", "--relative", commit, "--"]));
    const changes: FileChange[] = [];
    for (let i = 0; i < fields.length; ) {
      const status = fields[i++]!;
      if (status.startsWith("R") || status.startsWith("C")) {
        const baseFile = fields[i++]!;
        changes.push({ file: fields[i++]!, baseFile, status: status[0]! });
      } else {
        const file = fields[i++]!;
        if (!status.startsWith("D")) changes.push({ file, status: status[0]! });
      }
    }
    for (const file of await this.untracked()) changes.push({ file, status: "A" });
    return changes;
  }

  /** Tracked and untracked (not ignored) files of the working tree. */
  async listFiles(): Promise<string[]> {
    return splitZ(await run(this.cwd, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]));
  }

  /** Files of the checked folder in `commit`. */
  async filesAt(commit: string): Promise<Set<string>> {
    return new Set(splitZ(await run(this.cwd, ["ls-tree", "-r", "-z", "--name-only", commit])));
  }

  /** A file's text in `commit`; undefined when it has none there. */
  async show(commit: string, file: string): Promise<string | undefined> {
    return run(this.cwd, ["show", `${commit}:./${file}`]).catch(() => undefined);
  }

  /** Writes the whole tree of `commit` into `dir` (git archive | tar -x). */
  async exportTree(commit: string, dir: string): Promise<void> {
    const archive = spawn("git", ["archive", "--format=tar", commit], {
      cwd: this.root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const extract = spawn("tar", ["-x", "-f", "-", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
    archive.stdout.pipe(extract.stdin);
    const [archived, extracted] = await Promise.all([exitOf(archive), exitOf(extract)]);
    if (archived.code !== 0) throw new CheckError(`git archive ${commit} failed: ${archived.stderr.trim()}`);
    if (extracted.code !== 0) throw new CheckError(`extracting the base checkout failed: ${extracted.stderr.trim()}`);
  }

  /** Ignored `node_modules` folders of the working tree, relative to the repository root. */
  async nodeModulesFolders(): Promise<string[]> {
    const ignored = splitZ(
      await run(this.root, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]),
    );
    return ignored.map((path) => path.replace(/\/$/, "")).filter((path) => /(^|\/)node_modules$/.test(path));
  }

  private async untracked(): Promise<string[]> {
    return splitZ(await run(this.cwd, ["ls-files", "-z", "--others", "--exclude-standard"]));
  }
}

async function run(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync("git", args, { cwd, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8" });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === "ENOENT") throw new CheckError("git is not installed or not on PATH");
    throw new CheckError(`git ${args[0]} failed: ${(failure.stderr ?? failure.message).trim()}`);
  }
}

function splitZ(output: string): string[] {
  return output.split("\0").filter((field) => field !== "");
}

function exitOf(child: ReturnType<typeof spawn>): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => {
    child.once("error", (error) => resolve({ code: -1, stderr: error.message }));
    child.once("close", (code) => resolve({ code, stderr }));
  });
}
