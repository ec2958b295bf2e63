// Exchanges two paths atomically (renameat2 RENAME_EXCHANGE), as fast as it can, until the stop
// file exists; then leaves them as they were at the start and prints how many swaps it made.
// An optional fourth argument paces it: a pause of that many ms after every 64 swaps (default 0).
// Run by startFolderSwapper (folderSwapper.ts): a tenant's folder alternating with a symlink
// into another tenant's tree, the race an attacker runs against check-then-use code.
import { existsSync } from "node:fs";
import koffi from "koffi";

const [first, second, stopFile, pause = "0"] = process.argv.slice(2);
const pauseMs = Number(pause);
const libc = koffi.load("libc.so.6");
const renameat2 = libc.func(
  "int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)",
);
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
let swaps = 0;
const swap = () => {
  if (renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) !== 0) {
    process.stderr.write(`renameat2 failed (errno ${koffi.errno()})\n`);
    process.exit(1);
  }
  swaps++;
};
process.stdout.write("swapping\n");
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(stopFile)) {
  for (let i = 0; i < 64; i++) swap();
  if (pauseMs > 0) Atomics.wait(nap, 0, 0, pauseMs);
}
if (swaps % 2 === 1) swap();
process.stdout.write(`${swaps}\n`);
