// Composition root of a standalone runner: the only place that reads the environment.
//   LSPMESH_LISTEN           host:port for gRPC (default 0.0.0.0:7421)
//   LSPMESH_WORKSPACES_ROOT  volume holding <tenant>/<workspace> folders (default /workspaces)
//   LSPMESH_MAX_FILE_BYTES   largest file sent to a language server (default 4 MiB)
//   LSPMESH_LANGUAGES_FILE   JSON file overriding or adding language servers (docs/languages.md)
//   LSPMESH_SERVER_MEMORY_MB resident memory all language servers may use together (default 75 % of
//                            the container's memory limit; none without one)
//   LSPMESH_IDLE_TIMEOUT_S   a session unused this long is stopped (default 1800; 0 never)
//   LSPMESH_WARMUP           sessions started at once: tenant/workspace/language[,…] (default none)
import { LanguageConfigError, loadLanguageRegistry } from "./lsp/languageConfig.js";
import { containerMemoryBudget } from "./lsp/memoryBudget.js";
import { startRunnerServer } from "./runnerServer.js";
import { parseWarmUpList } from "./sessionWarmUp.js";
import { VolumeWorkspaceLocator } from "./workspace/workspaceLocator.js";

const log = (entry: Record<string, unknown>) =>
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), service: "runner", ...entry })}\n`);

const languagesFile = process.env.LSPMESH_LANGUAGES_FILE || undefined;
const languages = await loadLanguageRegistry(languagesFile).catch((error: unknown) => {
  if (!(error instanceof LanguageConfigError)) throw error;
  log({ level: "error", msg: "invalid languages file", file: error.source, problems: error.problems });
  process.exit(2);
});
log({
  level: "info",
  msg: "languages",
  file: languagesFile,
  enabled: languages.languages.map((language) => language.id),
  installed: languages.installed().map((language) => language.id),
});

const runner = await startRunnerServer({
  listen: process.env.LSPMESH_LISTEN ?? "0.0.0.0:7421",
  locator: new VolumeWorkspaceLocator(process.env.LSPMESH_WORKSPACES_ROOT ?? "/workspaces"),
  languages,
  maxFileBytes: process.env.LSPMESH_MAX_FILE_BYTES ? Number(process.env.LSPMESH_MAX_FILE_BYTES) : undefined,
  sessionPolicy: {
    memoryBudgetBytes: process.env.LSPMESH_SERVER_MEMORY_MB
      ? Number(process.env.LSPMESH_SERVER_MEMORY_MB) * 1024 * 1024
      : await containerMemoryBudget(),
    idleTimeoutMs: process.env.LSPMESH_IDLE_TIMEOUT_S ? Number(process.env.LSPMESH_IDLE_TIMEOUT_S) * 1000 : undefined,
  },
  warmUp: parseWarmUpList(process.env.LSPMESH_WARMUP ?? ""),
  log,
});
log({ level: "info", msg: "runner listening", address: runner.address });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log({ level: "info", msg: "draining", signal });
    void runner.close().then(() => process.exit(0));
  });
}
