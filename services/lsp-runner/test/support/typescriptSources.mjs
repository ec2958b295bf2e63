// `node --import ./typescriptSources.mjs src/…/x.ts`: runs the package's TypeScript sources in a
// child process, as vitest does in its own: Node strips the types, and this maps the sources'
// "./y.js" imports (NodeNext style) to "./y.ts" when no .js file exists.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (error?.code !== "ERR_MODULE_NOT_FOUND" || !specifier.startsWith(".") || !specifier.endsWith(".js"))
        throw error;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
