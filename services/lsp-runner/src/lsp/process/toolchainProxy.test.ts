import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { proxiedToolProblem } from "./toolchainProxy.js";

let dir: string;

// rustup's proxy behaviour, as rustup 1.29 shows it: `rustup which TOOL` prints the tool's path, or
// says on stderr why the active toolchain has none. Here the toolchain lacks the tool in any folder
// holding a file named `no-tool` (as a rust-toolchain.toml chooses a toolchain per folder).
const RUSTUP = `#!/bin/sh
[ "$1" = which ] || exit 2
if [ -e no-tool ] || [ "$RUSTUP_TOOLCHAIN" = bare ]; then
  printf "error: unknown binary '%s' in toolchain 'stable-x86_64-unknown-linux-gnu'\\n\\nStack backtrace:\\n   0: x\\n" "$2" >&2
  exit 1
fi
echo "/toolchains/stable/bin/$2"
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lspmesh-proxy-"));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "rustup"), RUSTUP);
  chmodSync(join(dir, "bin", "rustup"), 0o755);
  symlinkSync("rustup", join(dir, "bin", "rust-analyzer"));
  writeFileSync(join(dir, "bin", "gopls"), "#!/bin/sh\nexit 1\n");
  chmodSync(join(dir, "bin", "gopls"), 0o755);
  mkdirSync(join(dir, "without"));
  writeFileSync(join(dir, "without", "no-tool"), "");
  mkdirSync(join(dir, "with"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a rustup proxy whose toolchain lacks the tool says what rustup says, first line only", () => {
  expect(proxiedToolProblem(join(dir, "bin", "rust-analyzer"), { cwd: join(dir, "without") })).toBe(
    "unknown binary 'rust-analyzer' in toolchain 'stable-x86_64-unknown-linux-gnu'",
  );
  expect(
    proxiedToolProblem(join(dir, "bin", "rust-analyzer"), {
      cwd: join(dir, "with"),
      env: { RUSTUP_TOOLCHAIN: "bare" },
    }),
  ).toMatch(/^unknown binary 'rust-analyzer'/);
});

test("a proxy that has the tool, rustup itself and other commands are no problem", () => {
  expect(proxiedToolProblem(join(dir, "bin", "rust-analyzer"), { cwd: join(dir, "with") })).toBeUndefined();
  expect(proxiedToolProblem(join(dir, "bin", "rustup"), { cwd: join(dir, "without") })).toBeUndefined();
  // Not rustup: never run (this one would exit 1).
  expect(proxiedToolProblem(join(dir, "bin", "gopls"), { cwd: join(dir, "without") })).toBeUndefined();
  expect(proxiedToolProblem(join(dir, "bin", "missing"))).toBeUndefined();
});
