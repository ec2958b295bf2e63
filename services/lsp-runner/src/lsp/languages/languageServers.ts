// What each configured language server is and whether this machine can run it: for
// `lspmesh --version` and the start-up lines of `serve`, without starting any server.
import { installedExecutable } from "../process/serverStartFailure.js";
import { loadLanguages } from "./languageConfig.js";

export interface LanguageServerSummary {
  /** Language id, e.g. "typescript". */
  id: string;
  /** File extensions it serves, e.g. [".ts", ".tsx"]. */
  extensions: string[];
  /** The arguments the runner starts it with. */
  args: string[];
  /** Name and version when known ("pyright 1.1.414"), else the command. */
  server: string;
  /** The executable found (absolute path), or undefined when it is not installed (or a rustup proxy without it). */
  executable: string | undefined;
  /** How to install it, when it is not. */
  install?: string;
}

/** The enabled languages (built-ins merged with the languages file at `languagesFile`, if any). */
export async function languageServers(languagesFile?: string): Promise<LanguageServerSummary[]> {
  const languages = await loadLanguages(languagesFile);
  return languages.map((language) => {
    const executable = installedExecutable(language);
    const summary: LanguageServerSummary = {
      id: language.id,
      extensions: Object.keys(language.extensions),
      args: [...language.args],
      server: language.serverDescription ?? language.command,
      executable,
    };
    if (!executable && language.install) summary.install = language.install;
    return summary;
  });
}
