// Loaded into typescript-language-server's processes with NODE_OPTIONS=--require (it passes its
// environment on to tsserver). In tsserver only, before the server starts, it makes every
// language-service plugin a no-op: a workspace's tsconfig `compilerOptions.plugins` (and global
// plugins) would otherwise make tsserver require any package installed beside the runner's
// TypeScript, so a workspace would choose code the runner runs. Every plugin enters through
// Project#enablePlugin (configured, inferred and external projects, global plugins too).
// Plain CommonJS, copied next to the built modules: it runs before any module loader is set up.
"use strict";
const { dirname, join } = require("node:path");

const entry = process.argv[1] ?? "";
if (/[\\/]typescript[\\/]lib[\\/]_?tsserver\.js$/.test(entry)) {
  // The very module the server is about to load (lib/tsserver.js requires ./typescript.js).
  const ts = require(join(dirname(entry), "typescript.js"));
  ts.server.Project.prototype.enablePlugin = function enablePlugin(pluginEntry) {
    this.projectService.logger.info(
      `lspmesh: plugin '${pluginEntry?.name}' not loaded: a workspace chooses no code the runner runs`,
    );
  };
}
