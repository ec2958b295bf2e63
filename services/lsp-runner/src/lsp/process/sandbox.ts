// A language server sees only its own workspace. With bubblewrap (bwrap) each server's process
// tree runs in new mount, pid, ipc, uts and network namespaces where only these exist:
//   - the workspace, read-write, at its own path (so file URIs are the same inside and out);
//   - the system's programs and libraries read-only (/usr and the /bin, /lib… links into it, the
//     few /etc files a program needs to run), and the server's own installation read-only (the
//     node_modules folder its files are in, the Node binary, extra paths configured per language);
//   - a private, empty /tmp and a private, empty home folder at $HOME (caches land there and vanish
//     with the server);
//   - no network at all (only a loopback of its own), no capabilities.
// Every other tenant's workspace, the runner's credentials and the rest of the volume simply do
// not exist in there, whatever an import, a symlink or a project file names.
import { execFile } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, sep } from "node:path";
import { ETC_ENTRIES, SYSTEM_ROOTS } from "../../confinement/systemPaths.js";
import { findExecutable } from "./commandLookup.js";

/** A bubblewrap that was seen to work on this machine (detectSandbox). */
export interface Sandbox {
  readonly bwrapPath: string;
}

export interface SandboxedServer {
  /** The workspace folder (read-write). */
  workspace: string;
  /** The server's command and arguments: their installations are made visible read-only. */
  command: string;
  args: readonly string[];
  /** More read-only paths (a toolchain): absolute, or `~/…` under the runner's home. */
  readOnly?: readonly string[];
}

/**
 * Whether bubblewrap runs here: `bwrap` on PATH (or the given path) must start a program in the
 * sandbox this module builds (user namespaces or privileges allowing it). Resolves with the reason
 * when it does not.
 */
export async function detectSandbox(
  bwrap = "bwrap",
  path = process.env.PATH,
): Promise<{ sandbox: Sandbox } | { reason: string }> {
  const bwrapPath = findExecutable(bwrap, path);
  if (!bwrapPath)
    return { reason: `bubblewrap (${bwrap}) is not installed (Debian/Ubuntu: apt-get install bubblewrap)` };
  const workspace = mkdtempSync(join(tmpdir(), "lspmesh-sandbox-probe-"));
  const args = [...sandboxArgs({ workspace, command: "/bin/sh", args: [] }), "/bin/sh", "-c", "true"];
  const problem = await new Promise<string | undefined>((resolve) => {
    execFile(bwrapPath, args, { timeout: 10_000 }, (error, _stdout, stderr) =>
      resolve(error ? (String(stderr).trim() || error.message).split("\n")[0] : undefined),
    );
  }).finally(() => rmSync(workspace, { recursive: true, force: true }));
  return problem === undefined
    ? { sandbox: { bwrapPath } }
    : { reason: `bubblewrap cannot create a sandbox here: ${problem}` };
}

/** bwrap's arguments up to (not including) the command it runs. */
export function sandboxArgs(server: SandboxedServer): string[] {
  const args = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL"];
  for (const root of SYSTEM_ROOTS) {
    const kind = entryKind(root);
    if (kind === "link") args.push("--symlink", readlinkSync(root), root);
    else if (kind === "dir") args.push("--ro-bind", root, root);
  }
  for (const entry of ETC_ENTRIES) if (entryKind(entry)) args.push("--ro-bind", entry, entry);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  const home = homedir();
  if (home && home !== "/") args.push("--tmpfs", home);
  for (const path of installationPaths(server)) args.push("--ro-bind", path, path);
  // Last, so it wins over any of the above that contains it (a workspace inside a home folder).
  args.push("--bind", server.workspace, server.workspace, "--chdir", server.workspace);
  args.push("--setenv", "TMPDIR", "/tmp");
  return args;
}

/** Read-only folders a server needs beyond the system: where its command and files are installed. */
export function installationPaths(server: SandboxedServer): string[] {
  const found = new Set<string>();
  const add = (path: string | undefined) => {
    if (!path || !existsSync(path)) return;
    for (const candidate of new Set([path, safeRealpath(path)])) {
      const root = installationRoot(candidate);
      if (root && !SYSTEM_ROOTS.some((system) => root === system || root.startsWith(system + sep))) found.add(root);
    }
  };
  add(findExecutable(server.command, process.env.PATH));
  add(process.execPath);
  for (const arg of server.args) if (isAbsolute(arg)) add(arg);
  for (const extra of server.readOnly ?? []) {
    const path = homePath(extra);
    if (isAbsolute(path) && existsSync(path)) found.add(path);
  }
  // A folder inside another one already bound adds nothing.
  const sorted = [...found].sort((a, b) => a.length - b.length);
  return sorted.filter((path, i) => !sorted.slice(0, i).some((outer) => path.startsWith(outer + sep)));
}

/** A configured path with `~/` standing for the runner's home folder. */
export function homePath(path: string): string {
  return path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
}

/** The node_modules folder a file is installed in, else the file's own folder. */
function installationRoot(path: string): string | undefined {
  const marker = `${sep}node_modules${sep}`;
  const index = path.indexOf(marker);
  if (index >= 0) return path.slice(0, index + marker.length - 1);
  return dirname(path);
}

function entryKind(path: string): "dir" | "link" | "file" | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
