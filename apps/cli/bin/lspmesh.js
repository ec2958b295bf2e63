#!/usr/bin/env node
// The `lspmesh` command; the CLI is compiled into dist/ and bundled into dist/bundle/ (by
// `npm run build`, run by `npm ci` through `prepare`): one module per command and a few shared
// chunks load far faster than the thousand modules they are made of (scripts/bundle.mjs).
import("../dist/bundle/main.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bundle/main.js")) {
    console.error("lspmesh is not built yet: run `npm run build` in the repository root");
    process.exit(2);
  }
  throw error;
});
