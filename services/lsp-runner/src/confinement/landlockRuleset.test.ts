import { expect, test } from "vitest";
import {
  FS,
  fsRightsOf,
  handledAccess,
  NET,
  pathBeneathBytes,
  ruleRights,
  rulesetAttrBytes,
  rulesetAttrSize,
  SCOPE,
} from "./landlockRuleset.js";

const bitCount = (value: number) => value.toString(2).replaceAll("0", "").length;

test("each ABI handles every filesystem right it knows: 13, then REFER, TRUNCATE, IOCTL_DEV", () => {
  expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((abi) => bitCount(fsRightsOf(abi)))).toEqual([
    0, 13, 14, 15, 15, 16, 16, 16, 16,
  ]);
  expect(fsRightsOf(1) & FS.REFER).toBe(0);
  expect(fsRightsOf(2) & FS.REFER).toBe(FS.REFER);
  expect(fsRightsOf(3) & FS.TRUNCATE).toBe(FS.TRUNCATE);
  expect(fsRightsOf(4) & FS.IOCTL_DEV).toBe(0);
  expect(fsRightsOf(5) & FS.IOCTL_DEV).toBe(FS.IOCTL_DEV);
});

test("network rights are handled from ABI 4 and only when denying the network; scopes from ABI 6", () => {
  expect(handledAccess(3, true)).toMatchObject({ net: 0, scoped: 0 });
  expect(handledAccess(4, true)).toMatchObject({ net: NET.BIND_TCP | NET.CONNECT_TCP, scoped: 0 });
  expect(handledAccess(4, false).net).toBe(0);
  expect(handledAccess(6, false)).toMatchObject({ net: 0, scoped: SCOPE.ABSTRACT_UNIX_SOCKET | SCOPE.SIGNAL });
  expect(handledAccess(7, true)).toEqual({ fs: 0xffff, net: 3, scoped: 3 });
});

test("readOnly runs, reads and lists; readWrite gets everything; a file only file rights", () => {
  expect(ruleRights(7, "readOnly", true)).toBe(FS.EXECUTE | FS.READ_FILE | FS.READ_DIR);
  expect(ruleRights(7, "readOnly", false)).toBe(FS.EXECUTE | FS.READ_FILE);
  expect(ruleRights(7, "readWrite", true)).toBe(0xffff);
  expect(ruleRights(7, "readWrite", false)).toBe(
    FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV,
  );
  expect(ruleRights(1, "readWrite", false)).toBe(FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE);
});

test("a rule never grants a right its ABI does not handle (the kernel answers EINVAL)", () => {
  for (let abi = 1; abi <= 8; abi++)
    for (const access of ["readOnly", "readWrite"] as const)
      for (const isDirectory of [true, false]) {
        const rights = ruleRights(abi, access, isDirectory);
        expect(rights).toBeGreaterThan(0);
        expect(rights & ~fsRightsOf(abi)).toBe(0);
      }
});

test("landlock_ruleset_attr: three u64 cut to the ABI's size (8, 16 or 24 bytes)", () => {
  expect([1, 3, 4, 5, 6, 7].map(rulesetAttrSize)).toEqual([8, 8, 16, 16, 24, 24]);
  expect(rulesetAttrBytes(3, handledAccess(3, true), "LE").toString("hex")).toBe("ff7f000000000000");
  expect(rulesetAttrBytes(7, handledAccess(7, true), "LE").toString("hex")).toBe(
    "ffff000000000000" + "0300000000000000" + "0300000000000000",
  );
  expect(rulesetAttrBytes(4, handledAccess(4, true), "BE").toString("hex")).toBe(
    "0000000000007fff" + "0000000000000003",
  );
  expect(() => rulesetAttrBytes(3, { fs: 1, net: 3, scoped: 0 }, "LE")).toThrow(RangeError);
  expect(() => rulesetAttrBytes(5, { fs: 1, net: 0, scoped: 3 }, "LE")).toThrow(RangeError);
});

test("landlock_path_beneath_attr is packed: u64 rights then s32 fd, 12 bytes", () => {
  const bytes = pathBeneathBytes(FS.EXECUTE | FS.READ_FILE | FS.READ_DIR, 21, "LE");
  expect(bytes.toString("hex")).toBe("0d00000000000000" + "15000000");
  expect(pathBeneathBytes(0xc007, 3, "BE").toString("hex")).toBe("000000000000c007" + "00000003");
});
