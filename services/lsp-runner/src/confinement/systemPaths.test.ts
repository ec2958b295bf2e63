import { expect, test } from "vitest";
import { sandboxArgs } from "../lsp/process/sandbox.js";
import { ETC_ENTRIES, SYSTEM_READ_ONLY, SYSTEM_READ_WRITE } from "./systemPaths.js";

const isPrivate = (path: string) => path === "/etc/ssl" || path.startsWith("/etc/ssl/private");

test("neither a confined worker nor a sandboxed server is given TLS private keys (/etc/ssl/private)", () => {
  expect([...ETC_ENTRIES, ...SYSTEM_READ_ONLY, ...SYSTEM_READ_WRITE].filter(isPrivate)).toEqual([]);
  const args = sandboxArgs({ workspace: "/tmp/workspace", command: "/bin/sh", args: [] });
  expect(args.filter(isPrivate)).toEqual([]);
  // The TLS roots are still there, for servers that fetch over TLS where the network is allowed.
  expect(ETC_ENTRIES).toContain("/etc/ssl/certs");
});
