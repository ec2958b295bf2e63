// What any confined program needs of the system besides its own installation and workspace: the
// dynamic loader's libraries and cache, users and groups, time zone, TLS roots, the harmless
// devices, and /proc and /sys pieces that runtimes read to size themselves (CPU count, cgroup
// limits). Paths that do not exist on a machine are skipped when the ruleset is built.
//
// /proc is whole: a program reads its own /proc/self/*, and other processes' ptrace-guarded files
// (environ, mem, fd/, maps…) stay denied by Landlock's ptrace scoping. Their cmdline and status do
// not: a worker sees which processes run on its machine (only a pid namespace hides that).

/** Top-level system folders (or, merged into /usr, links to it): programs and libraries. */
export const SYSTEM_ROOTS: readonly string[] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * What programs read in /etc to start: the loader cache, users, name service, time zone, TLS
 * roots and OpenSSL's configuration (Node reads it at start) — never /etc/ssl/private.
 */
export const ETC_ENTRIES: readonly string[] = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/localtime",
  "/etc/ssl/certs",
  "/etc/ssl/openssl.cnf",
  "/etc/ca-certificates",
  "/etc/alternatives",
  "/etc/python3",
];

/** Read and execute. */
export const SYSTEM_READ_ONLY: readonly string[] = [
  ...SYSTEM_ROOTS,
  ...ETC_ENTRIES,
  "/proc",
  "/sys/fs/cgroup",
  "/sys/devices/system/cpu",
  "/dev/urandom",
  "/dev/random",
];

/** Written to as well (a device that discards or yields zeros). */
export const SYSTEM_READ_WRITE: readonly string[] = ["/dev/null", "/dev/zero", "/dev/full"];
