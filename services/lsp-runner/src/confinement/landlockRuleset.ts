// What a Landlock ruleset holds, as plain numbers and bytes (no system call here, so it is unit
// tested): which access rights the running kernel's ABI knows — all of them are "handled", so
// whatever a rule does not grant is denied — which rights a rule grants, and the two structures
// the system calls read. Values from the kernel's include/uapi/linux/landlock.h.

/** Filesystem access rights (`LANDLOCK_ACCESS_FS_*`) and the ABI that introduced each. */
export const FS = {
  EXECUTE: 1 << 0,
  WRITE_FILE: 1 << 1,
  READ_FILE: 1 << 2,
  READ_DIR: 1 << 3,
  REMOVE_DIR: 1 << 4,
  REMOVE_FILE: 1 << 5,
  MAKE_CHAR: 1 << 6,
  MAKE_DIR: 1 << 7,
  MAKE_REG: 1 << 8,
  MAKE_SOCK: 1 << 9,
  MAKE_FIFO: 1 << 10,
  MAKE_BLOCK: 1 << 11,
  MAKE_SYM: 1 << 12,
  /** ABI 2: link or rename a file into another folder. Unhandled in ABI 1, where it is always denied. */
  REFER: 1 << 13,
  /** ABI 3: truncate(2), ftruncate(2), open(O_TRUNC). */
  TRUNCATE: 1 << 14,
  /** ABI 5: ioctl(2) on character and block devices opened after confinement. */
  IOCTL_DEV: 1 << 15,
} as const;

/** Network access rights (`LANDLOCK_ACCESS_NET_*`, ABI 4): TCP only; UDP and others stay open. */
export const NET = { BIND_TCP: 1 << 0, CONNECT_TCP: 1 << 1 } as const;

/** Scopes (`LANDLOCK_SCOPE_*`, ABI 6): IPC that may not leave the domain. */
export const SCOPE = { ABSTRACT_UNIX_SOCKET: 1 << 0, SIGNAL: 1 << 1 } as const;

/** `landlock_create_ruleset` flag: return the ABI version instead of a ruleset. */
export const CREATE_RULESET_VERSION = 1;
/** `landlock_add_rule` rule type: a landlock_path_beneath_attr. */
export const RULE_PATH_BENEATH = 1;

/** The rights a rule on a non-directory may carry (more gives EINVAL): those acting on an opened file. */
const FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV;
/** readOnly: run and read, list folders; nothing that creates, changes or removes. */
const READ_ONLY_RIGHTS = FS.EXECUTE | FS.READ_FILE | FS.READ_DIR;

/** Every filesystem right `abi` knows (ABI 1: 13; 2: +REFER; 3: +TRUNCATE; 5: +IOCTL_DEV). */
export function fsRightsOf(abi: number): number {
  if (abi < 1) return 0;
  if (abi === 1) return FS.REFER - 1;
  if (abi === 2) return FS.TRUNCATE - 1;
  if (abi <= 4) return FS.IOCTL_DEV - 1;
  return (FS.IOCTL_DEV << 1) - 1;
}

export interface HandledAccess {
  /** handled_access_fs: every right the ABI knows. */
  fs: number;
  /** handled_access_net: TCP bind and connect when denying the network (ABI ≥ 4), else 0. */
  net: number;
  /** scoped: abstract unix sockets and signals (ABI ≥ 6), else 0. */
  scoped: number;
}

export function handledAccess(abi: number, denyNetwork: boolean): HandledAccess {
  return {
    fs: fsRightsOf(abi),
    net: abi >= 4 && denyNetwork ? NET.BIND_TCP | NET.CONNECT_TCP : 0,
    scoped: abi >= 6 ? SCOPE.ABSTRACT_UNIX_SOCKET | SCOPE.SIGNAL : 0,
  };
}

export type PathAccess = "readOnly" | "readWrite";

/** The rights one path-beneath rule grants: folders get the whole set, other files only file rights. */
export function ruleRights(abi: number, access: PathAccess, isDirectory: boolean): number {
  const wanted = access === "readWrite" ? fsRightsOf(abi) : READ_ONLY_RIGHTS;
  return wanted & fsRightsOf(abi) & (isDirectory ? ~0 : FILE_RIGHTS);
}

/** sizeof(struct landlock_ruleset_attr) as the ABI knows it: 8 bytes (fs), 16 (+net, ABI 4), 24 (+scoped, ABI 6). */
export function rulesetAttrSize(abi: number): number {
  return abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
}

type Endianness = "LE" | "BE";

/** struct landlock_ruleset_attr { __u64 handled_access_fs, handled_access_net, scoped; }, cut to the ABI's size. */
export function rulesetAttrBytes(abi: number, handled: HandledAccess, endianness: Endianness): Buffer {
  const size = rulesetAttrSize(abi);
  if (size < 16 && handled.net !== 0) throw new RangeError(`ABI ${abi} has no network rights`);
  if (size < 24 && handled.scoped !== 0) throw new RangeError(`ABI ${abi} has no scopes`);
  const bytes = Buffer.alloc(size);
  [handled.fs, handled.net, handled.scoped].forEach((value, index) => {
    if (index * 8 >= size) return;
    if (endianness === "LE") bytes.writeBigUInt64LE(BigInt(value), index * 8);
    else bytes.writeBigUInt64BE(BigInt(value), index * 8);
  });
  return bytes;
}

/** struct landlock_path_beneath_attr { __u64 allowed_access; __s32 parent_fd; } __attribute__((packed)): 12 bytes. */
export function pathBeneathBytes(allowedAccess: number, parentFd: number, endianness: Endianness): Buffer {
  const bytes = Buffer.alloc(12);
  if (endianness === "LE") {
    bytes.writeBigUInt64LE(BigInt(allowedAccess), 0);
    bytes.writeInt32LE(parentFd, 8);
  } else {
    bytes.writeBigUInt64BE(BigInt(allowedAccess), 0);
    bytes.writeInt32BE(parentFd, 8);
  }
  return bytes;
}
