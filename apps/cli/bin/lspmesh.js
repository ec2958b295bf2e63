#!/usr/bin/env node
// The `lspmesh` command; the compiled CLI lives in dist/ (built by `npm ci` through `prepare`).
import("../dist/main.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/main.js")) {
    console.error("lspmesh is not built yet: run `npm run build` in the repository root");
    process.exit(2);
  }
  throw error;
});
