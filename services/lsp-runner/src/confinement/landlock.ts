// Confining a tenant's worker with Linux Landlock, from Node.
//
// Landlock lets an unprivileged process take away its own access to the filesystem (all but the
// folders it names), TCP bind/connect (ABI ≥ 4) and IPC out of its domain — signals and abstract
// unix sockets (ABI ≥ 6) — and ptrace or /proc/<pid>/environ-style access to processes outside it
// (always). It needs no capability, no user namespace and no setuid helper, so it works as a
// non-root user in a Kubernetes "restricted" pod, where bubblewrap cannot run.
//
// Landlock restricts the calling *thread* (and what it later creates), but Node already runs
// several threads (V8 platform workers, libuv's pool) before any of our code. So the pattern is:
// restrict the main thread (prctl(PR_SET_NO_NEW_PRIVS) then landlock_restrict_self), then at once
// process.execve() a new Node: execve keeps the thread's Landlock domain, and every thread and
// child of the new image — language servers included — is born inside it and cannot leave it.
// confineSelf() alone leaves Node's other threads free: use execConfined() or the launcher
// (./launch.ts) rather than confineSelf() in a long-lived process.
//
// Why koffi (an FFI from npm) rather than a small C helper binary: it ships as an npm dependency
// with prebuilt binaries for each platform — no compiler in the build or the image, nothing to
// install with privileges — and the three system calls need no more than an FFI. Syscall numbers
// 444/445/446 are the same on x86_64 and aarch64 (and every other asm-generic architecture).

import { fstatSync } from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";
import { isMainThread } from "node:worker_threads";
import {
  CREATE_RULESET_VERSION,
  handledAccess,
  type PathAccess,
  pathBeneathBytes,
  RULE_PATH_BENEATH,
  ruleRights,
  rulesetAttrBytes,
} from "./landlockRuleset.js";
import { ConfinementError, type ConfinementPolicy, checkPolicy } from "./policy.js";

export { ConfinementError, type ConfinementPolicy } from "./policy.js";

/** x86_64 and aarch64: the kernel's unified syscall numbers. Other architectures report ABI 0. */
const SYSCALLS: Partial<Record<NodeJS.Architecture, { create: number; addRule: number; restrictSelf: number }>> = {
  x64: { create: 444, addRule: 445, restrictSelf: 446 },
  arm64: { create: 444, addRule: 445, restrictSelf: 446 },
};
/** open(2) flags, the same on x86_64 and aarch64: a handle naming the inode, closed on exec. */
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
const PR_SET_NO_NEW_PRIVS = 38;
const F_SETFD = 2;

type Koffi = typeof import("koffi");
interface Libc {
  koffi: Koffi;
  /** long syscall(long number, ...): every extra argument is passed as (type, value). */
  syscall: (nr: number, ...typedArgs: unknown[]) => number | bigint;
  prctl: (option: number, ...typedArgs: unknown[]) => number;
  open: (path: string, flags: number) => number;
  close: (fd: number) => number;
  fcntl: (fd: number, command: number, ...typedArgs: unknown[]) => number;
}

let libc: Libc | { error: string } | undefined;

/** libc through koffi, loaded once; `{ error }` when koffi or libc.so.6 cannot load (musl, other OS). */
function loadLibc(): Libc | { error: string } {
  if (libc) return libc;
  try {
    const koffi = createRequire(import.meta.url)("koffi") as Koffi;
    const lib = koffi.load("libc.so.6");
    libc = {
      koffi,
      syscall: lib.func("long syscall(long number, ...)"),
      prctl: lib.func("int prctl(int option, ...)"),
      open: lib.func("int open(const char *path, int flags, ...)"),
      close: lib.func("int close(int fd)"),
      fcntl: lib.func("int fcntl(int fd, int command, ...)"),
    };
  } catch (error) {
    libc = { error: `cannot load libc through koffi: ${(error as Error).message}` };
  }
  return libc;
}

export interface LandlockStatus {
  /** The kernel's Landlock ABI version; 0 when Landlock cannot be used here. */
  abi: number;
  /** Why the ABI is 0. */
  reason?: string;
}

/** Whether and which Landlock this kernel offers (for logs: say why not). */
export function landlockStatus(): LandlockStatus {
  if (process.platform !== "linux") return { abi: 0, reason: `Landlock is Linux-only (${process.platform})` };
  const numbers = SYSCALLS[process.arch];
  if (!numbers) return { abi: 0, reason: `Landlock syscall numbers not known for ${process.arch}` };
  const c = loadLibc();
  if ("error" in c) return { abi: 0, reason: c.error };
  const abi = Number(c.syscall(numbers.create, "void *", null, "long", 0, "long", CREATE_RULESET_VERSION));
  if (abi > 0) return { abi };
  // ENOSYS: kernel < 5.13 or a seccomp filter; EOPNOTSUPP: built in but disabled (lsm= boot option).
  return { abi: 0, reason: `landlock_create_ruleset: ${errnoName(c, c.koffi.errno())}` };
}

/** The kernel's Landlock ABI version; 0 when unsupported (no Landlock, disabled, blocked, koffi missing). */
export function landlockAbi(): number {
  return landlockStatus().abi;
}

/**
 * Confines the calling thread — the main thread — for good: the policy's paths stay reachable,
 * everything else in the filesystem is denied, and (per ABI) TCP, signals and abstract unix sockets
 * that leave the domain. Node's other threads stay unconfined: follow with execve (execConfined).
 * Throws ConfinementError when Landlock is unavailable or a step fails (paths that do not exist are skipped).
 */
export function confineSelf(policy: ConfinementPolicy): void {
  checkPolicy(policy);
  if (!isMainThread) throw new ConfinementError("confineSelf must run on the main thread (it is then exec'd)");
  const { abi, reason } = landlockStatus();
  if (abi === 0) throw new ConfinementError(`Landlock is not available: ${reason}`);
  const c = loadLibc() as Libc;
  const numbers = SYSCALLS[process.arch]!;
  const order = endianness();
  const fail = (what: string): never => {
    throw new ConfinementError(`${what}: ${errnoName(c, c.koffi.errno())}`);
  };

  const attr = rulesetAttrBytes(abi, handledAccess(abi, policy.denyNetwork), order);
  const rulesetFd = Number(c.syscall(numbers.create, "void *", attr, "long", attr.length, "long", 0));
  if (rulesetFd < 0) fail("landlock_create_ruleset");
  try {
    const rules: (readonly [string, PathAccess, "any" | "file"])[] = [
      ...policy.readWrite.map((path) => [path, "readWrite", "any"] as const),
      ...policy.readOnly.map((path) => [path, "readOnly", "any"] as const),
      ...(policy.readOnlyFiles ?? []).map((path) => [path, "readOnly", "file"] as const),
    ];
    for (const [path, access, expect] of rules) {
      const fd = c.open(path, O_PATH | O_CLOEXEC);
      if (fd < 0) {
        const code = c.koffi.errno();
        // Missing, or out of this user's reach anyway (a worker running as another user than
        // the runner): no rule needed, the path stays denied.
        const { ENOENT, ENOTDIR, EACCES } = c.koffi.os.errno;
        if (code === ENOENT || code === ENOTDIR || code === EACCES) continue;
        throw new ConfinementError(`cannot open ${path} for a Landlock rule: ${errnoName(c, code)}`);
      }
      try {
        // fstat on the O_PATH handle: the kind of the very inode the rule will name (no race with a rename).
        const isDirectory = fstatSync(fd).isDirectory();
        if (expect === "file" && isDirectory) throw new ConfinementError(`readOnlyFiles: ${path} is a folder`);
        const rule = pathBeneathBytes(ruleRights(abi, access, isDirectory), fd, order);
        const added = Number(
          c.syscall(numbers.addRule, "long", rulesetFd, "long", RULE_PATH_BENEATH, "void *", rule, "long", 0),
        );
        if (added < 0) fail(`landlock_add_rule ${path}`);
      } finally {
        c.close(fd);
      }
    }
    if (
      c.prctl(PR_SET_NO_NEW_PRIVS, "unsigned long", 1, "unsigned long", 0, "unsigned long", 0, "unsigned long", 0) < 0
    )
      fail("prctl(PR_SET_NO_NEW_PRIVS)");
    if (Number(c.syscall(numbers.restrictSelf, "long", rulesetFd, "long", 0)) < 0) fail("landlock_restrict_self");
  } finally {
    c.close(rulesetFd);
  }
}

export interface ExecOptions {
  /**
   * Descriptors beyond stdio to hand to the new image even if marked close-on-exec — e.g. the fd
   * of an IPC channel, which Node marks so at startup.
   */
  keepFds?: readonly number[];
}

/**
 * Confines this process and replaces it with `node <argv…>` in the same pid, with `env` as its
 * whole environment. stdio (fds 0-2), `keepFds` and inherited descriptors not marked
 * close-on-exec stay open. Never returns; throws ConfinementError before confining, or an error
 * after (then the process is confined but still this image: exit).
 */
export function execConfined(
  policy: ConfinementPolicy,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  { keepFds = [] }: ExecOptions = {},
): never {
  if (typeof process.execve !== "function") throw new ConfinementError("process.execve needs Node ≥ 22.15");
  confineSelf(policy);
  const c = loadLibc() as Libc;
  for (const fd of keepFds)
    if (c.fcntl(fd, F_SETFD, "int", 0) < 0)
      throw new ConfinementError(`cannot keep fd ${fd} open across exec: ${errnoName(c, c.koffi.errno())}`);
  const strings = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
  return process.execve(process.execPath, [process.execPath, ...argv], strings);
}

function errnoName(c: Libc, code: number): string {
  const name = Object.entries(c.koffi.os.errno).find(([, value]) => value === code)?.[0];
  return name ? `${name} (errno ${code})` : `errno ${code}`;
}
