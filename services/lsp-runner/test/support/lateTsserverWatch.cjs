// Preloaded into tsserver by a test (NODE_OPTIONS --require, as the plugin guard is): every file
// event of tsserver's own watcher reaches it 1 s late, as on a machine whose cores are saturated.
// A question asked right after a write is then answered from before it unless the runner itself
// has tsserver re-read the file.
"use strict";
const entry = process.argv[1] ?? "";
if (/[\\/]typescript[\\/]lib[\\/]_?tsserver\.js$/.test(entry)) {
  const fs = require("node:fs");
  const LATE_MS = 1000;
  const late = (listener) => listener && ((...args) => setTimeout(() => listener(...args), LATE_MS));
  const watch = fs.watch;
  fs.watch = (path, options, listener) =>
    typeof options === "function" ? watch(path, late(options)) : watch(path, options, late(listener));
  const watchFile = fs.watchFile;
  fs.watchFile = (path, options, listener) =>
    typeof options === "function" ? watchFile(path, late(options)) : watchFile(path, options, late(listener));
}
