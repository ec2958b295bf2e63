// Files under no tsconfig.json/jsconfig.json (a JavaScript package without one: express) are in no
// project tsserver knows until opened, and an opened one brings only what it imports: a workspace-
// wide question (references, rename) would miss every use in the others, tests included, and say
// nothing. They are given to tsserver as one external project (its `openExternalProject`, through
// typescript-language-server's `typescript.tsserverRequest` command), with the compiler options
// typescript-language-server gives its inferred projects, so each answers as when opened alone.

import { join } from "node:path";
import { ExecuteCommandRequest } from "vscode-languageserver-protocol";
import { TSSERVER_REQUEST_COMMAND } from "./tsserverDiagnostics.js";
import type { ServerRequest } from "./tsserverNavto.js";

/**
 * The project's name: a file that does not exist, in the workspace root (tsserver resolves the
 * project's modules from its folder). Not a file lspmesh writes.
 */
export const LOOSE_FILES_PROJECT = ".lspmesh-files-outside-projects.jsproj";

/**
 * typescript-language-server's inferred-project options (TypeScript 5.4 or later): module
 * "preserve" with bundler resolution, ES2022, react-jsx, JavaScript allowed but not type-checked,
 * .ts extensions in imports allowed; noEmit (nothing is built) as that requires.
 */
const INFERRED_PROJECT_OPTIONS = {
  module: "preserve",
  moduleResolution: "bundler",
  target: "es2022",
  jsx: "react-jsx",
  allowImportingTsExtensions: true,
  allowJs: true,
  allowNonTsExtensions: true,
  allowSyntheticDefaultImports: true,
  resolveJsonModule: true,
  noEmit: true,
};

/** Gives tsserver `files` (absolute paths) as one project of the workspace `root`; replaces an earlier one. */
export async function openLooseFilesProject(request: ServerRequest, root: string, files: readonly string[]) {
  await request(ExecuteCommandRequest.method, {
    command: TSSERVER_REQUEST_COMMAND,
    arguments: [
      "openExternalProject",
      {
        projectFileName: join(root, LOOSE_FILES_PROJECT),
        rootFiles: files.map((fileName) => ({ fileName })),
        options: INFERRED_PROJECT_OPTIONS,
        // No type acquisition: it would download @types packages.
        typeAcquisition: { enable: false },
      },
    ],
  });
}
