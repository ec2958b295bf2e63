// The language a file belongs to, for routing (tenant, workspace, language) to a runner pool.
// Language ids match the runners' registry entries (RunnerRegistryEntry.languages).

const BY_EXTENSION: Record<string, string> = {};
const LANGUAGES: Record<string, string[]> = {
  typescript: ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
  python: ["py", "pyi"],
  go: ["go"],
  rust: ["rs"],
  cpp: ["c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx"],
  java: ["java"],
};
for (const [language, extensions] of Object.entries(LANGUAGES)) {
  for (const extension of extensions) BY_EXTENSION[extension] = language;
}

/** "typescript" for src/a.ts; "" when the extension is unknown (any runner may answer, e.g. NO_LANGUAGE_SERVER). */
export function languageOfFile(file: string): string {
  const name = file.slice(file.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "";
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? "";
}
