// The operator's languages file (LSPMESH_LANGUAGES_FILE, `lspmesh serve --languages FILE`):
// validated JSON that overrides built-in languages and adds new ones. Shape and merge rules are
// documented in docs/languages.md; every error names the field to fix.
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { builtinLanguages } from "./builtinLanguages.js";
import type { LanguageDefinition, LanguageServerConfig } from "./languageRegistry.js";
import { LanguageRegistry } from "./languageRegistry.js";
import type { IndexProgress } from "./languageServerConfig.js";

const LANGUAGE_ID = /^[a-z][a-z0-9_-]{0,39}$/;
/** ".ts", ".c++": a dot, then no dot, slash or space. */
const EXTENSION = /^\.[^\s./\\]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Longest configurable request or start timeout, in ms (10 minutes). */
const MAX_TIMEOUT_MS = 600_000;

const languageEntrySchema = z.strictObject({
  enabled: z.boolean().optional(),
  extensions: z
    .record(
      z.string().regex(EXTENSION, 'an extension is a dot and a suffix, such as ".lua"'),
      z.string().min(1, 'give the LSP languageId, such as "lua"'),
    )
    .optional(),
  command: z.string().min(1, "give a command: a name on PATH or an absolute path").optional(),
  args: z.array(z.string()).optional(),
  initializationOptions: z.json().optional(),
  settings: z.record(z.string(), z.json()).optional(),
  env: z
    .record(z.string().regex(ENV_NAME, "an environment variable name is letters, digits and _"), z.string())
    .optional(),
  requestTimeoutMs: z.int().min(1).max(MAX_TIMEOUT_MS).optional(),
  startTimeoutMs: z.int().min(1).max(MAX_TIMEOUT_MS).optional(),
  maxBusyMs: z.int().min(0).max(MAX_TIMEOUT_MS).optional(),
  diagnosticsSettleMs: z.int().min(0).max(60_000).optional(),
  watchProcessTree: z.boolean().optional(),
  readinessProbe: z.literal("workspaceSymbol").optional(),
  diagnosticsPull: z.enum(["tsserverRequest", "textDocumentDiagnostic"]).optional(),
  workspaceSymbolLimit: z
    .strictObject({ most: z.int().min(1).max(1_000_000), asked: z.boolean().optional() })
    .optional(),
  install: z.string().optional(),
  sandbox: z.enum(["bwrap", "none"]).optional(),
  sandboxReadOnly: z
    .array(z.string().regex(/^(\/|~\/)/, "a read-only sandbox path is absolute or starts with ~/"))
    .optional(),
});

const languageIdSchema = z
  .string()
  .regex(LANGUAGE_ID, "a language id is lower case letters, digits, '-' and '_', starting with a letter");

const languagesFileSchema = z.strictObject({
  $schema: z.string().optional(),
  // The languages this runner serves: every other one (built-in or from this file) is disabled,
  // so a pool's file names what it serves and a new built-in language stays off there.
  serve: z.array(languageIdSchema).min(1, "name at least one language, or leave serve out to serve all").optional(),
  languages: z.record(languageIdSchema, languageEntrySchema).default({}),
});

export type LanguageEntry = z.infer<typeof languageEntrySchema>;
export type LanguagesFile = z.infer<typeof languagesFileSchema>;

/** A languages file that cannot be used; the message lists every problem, one per line. */
export class LanguageConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`languages file ${source} is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "LanguageConfigError";
  }
}

/** Parses and validates the file's text; `source` names it in errors. */
export function parseLanguagesFile(text: string, source: string): LanguagesFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LanguageConfigError(source, [`not valid JSON: ${withLineAndColumn(text, (error as Error).message)}`]);
  }
  const parsed = languagesFileSchema.safeParse(json);
  if (!parsed.success) throw new LanguageConfigError(source, parsed.error.issues.map(describeIssue));
  return parsed.data;
}

/** JSON.parse says "at position 71"; people count lines. */
function withLineAndColumn(text: string, message: string): string {
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined || / line \d+/.test(message)) return message;
  const before = text.slice(0, Number(position)).split("\n");
  return `${message} (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = fieldPath(issue.path);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return `${where || "(top level)"}: unknown field ${keys}${where ? "" : '; the file holds { "languages": { "<id>": { … } } }'}`;
  }
  if (issue.code === "invalid_key") {
    const inner = issue.issues[0]?.message ?? issue.message;
    return `${where}: ${inner}`;
  }
  return `${where || "(top level)"}: ${issue.message}`;
}

/** languages.go.args[0], languages.cpp.extensions[".h"] */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (typeof part === "string" && /^[A-Za-z_$][\w$-]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/**
 * Applies the file to the built-in languages. For a known id, each given field replaces the
 * built-in one, except `settings`, `initializationOptions` and `env`, which are merged key by key
 * (objects recursively; arrays and other values replaced), so safety defaults survive unless
 * overridden by name. Giving `command` also replaces `args` (default []) and `install`.
 * A new id needs `extensions` and `command`. A relative command with a slash is resolved against
 * `baseDir` (the file's folder). Enabled languages must not share an extension.
 */
export function mergeLanguages(
  builtins: readonly LanguageDefinition[],
  file: LanguagesFile,
  source: string,
  baseDir?: string,
): LanguageDefinition[] {
  const problems: string[] = [];
  const merged: LanguageDefinition[] = [];
  const known = new Set(builtins.map((language) => language.id));
  for (const builtin of builtins) {
    const entry = file.languages[builtin.id];
    merged.push(entry ? overrideLanguage(builtin, entry) : builtin);
  }
  for (const [id, entry] of Object.entries(file.languages)) {
    if (known.has(id)) continue;
    const missing = (["extensions", "command"] as const).filter((field) => entry[field] === undefined);
    if (missing.length > 0) {
      problems.push(
        `languages.${id}: a new language needs ${missing.map((f) => `"${f}"`).join(" and ")} (built-in ids: ${[...known].join(", ")})`,
      );
      continue;
    }
    merged.push(overrideLanguage({ id, extensions: {}, command: "", args: [], enabled: true }, entry));
  }
  const served = file.serve;
  if (served) {
    const ids = new Set(merged.map((language) => language.id));
    for (const [index, id] of served.entries())
      if (!ids.has(id)) problems.push(`serve[${index}]: no language "${id}" (known: ${[...ids].join(", ")})`);
  }
  const resolved = merged.map((language) => {
    const command = resolveCommand(language.command, baseDir);
    if (command === undefined) {
      problems.push(
        `languages.${language.id}.command: '${language.command}' is relative; give a name on PATH or an absolute path`,
      );
    }
    const enabled = language.enabled && (!served || served.includes(language.id));
    return { ...language, enabled, command: command ?? language.command };
  });
  problems.push(...extensionConflicts(resolved));
  if (problems.length > 0) throw new LanguageConfigError(source, problems);
  return resolved;
}

function overrideLanguage(base: LanguageDefinition, entry: LanguageEntry): LanguageDefinition {
  const commandChanged = entry.command !== undefined;
  return {
    ...base,
    enabled: entry.enabled ?? base.enabled,
    extensions: entry.extensions ? lowerCaseKeys(entry.extensions) : base.extensions,
    command: entry.command ?? base.command,
    args: entry.args ?? (commandChanged ? [] : base.args),
    install: commandChanged ? entry.install : (entry.install ?? base.install),
    initializationOptions: mergeJson(base.initializationOptions, entry.initializationOptions),
    settings: mergeJson(base.settings, entry.settings) as Record<string, unknown> | undefined,
    env: mergeJson(base.env, entry.env) as Record<string, string> | undefined,
    requestTimeoutMs: entry.requestTimeoutMs ?? base.requestTimeoutMs,
    startTimeoutMs: entry.startTimeoutMs ?? base.startTimeoutMs,
    // Patience is earned by the built-in server's known long work, not by another command.
    maxBusyMs: commandChanged ? entry.maxBusyMs : (entry.maxBusyMs ?? base.maxBusyMs),
    diagnosticsSettleMs: entry.diagnosticsSettleMs ?? base.diagnosticsSettleMs,
    // Another command has another process tree: the built-in's setting does not carry over.
    watchProcessTree: commandChanged ? entry.watchProcessTree : (entry.watchProcessTree ?? base.watchProcessTree),
    readinessProbe: commandChanged ? entry.readinessProbe : (entry.readinessProbe ?? base.readinessProbe),
    includeConfig: commandChanged ? undefined : base.includeConfig,
    uncancelledMethods: commandChanged ? undefined : base.uncancelledMethods,
    indexProgress: commandChanged ? undefined : indexProgressFor(base.indexProgress, entry.args),
    diagnosticsPull: commandChanged ? entry.diagnosticsPull : (entry.diagnosticsPull ?? base.diagnosticsPull),
    workspaceSymbolLimit: commandChanged
      ? entry.workspaceSymbolLimit
      : (entry.workspaceSymbolLimit ?? base.workspaceSymbolLimit),
    // Another command is another server: the built-in's description would be wrong.
    serverDescription: commandChanged ? undefined : base.serverDescription,
    sandbox: entry.sandbox ?? base.sandbox,
    sandboxReadOnly: entry.sandboxReadOnly ?? (commandChanged ? undefined : base.sandboxReadOnly),
  };
}

/**
 * The built-in's awaited index under a languages file's `args`: kept unless they turn the
 * background index off, with the project database looked for where `--compile-commands-dir`
 * says (relative to the workspace root) when given.
 */
function indexProgressFor(
  base: IndexProgress | undefined,
  args: readonly string[] | undefined,
): IndexProgress | undefined {
  if (!base || args === undefined) return base;
  // clangd indexes in the background unless told not to (and a wait that never ends stops after
  // indexProgress.startTimeoutMs anyway).
  if (args.some((arg) => /^--background-index=(false|0)$/.test(arg))) return undefined;
  const dir = args.find((arg) => arg.startsWith("--compile-commands-dir="))?.slice("--compile-commands-dir=".length);
  if (dir === undefined) return base;
  // Absolute, or relative to the server's working folder (the workspace root).
  return {
    ...base,
    databases: [join(dir, "compile_commands.json")],
    missingNote: base.missingNote.replace("in the workspace root or build/", `in ${dir} (--compile-commands-dir)`),
  };
}

/** Objects merged key by key, recursively; anything else in `override` replaces `base`. */
export function mergeJson(base: unknown, override: unknown): unknown {
  if (override === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(override)) return override;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = mergeJson(base[key], value);
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lowerCaseKeys(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key.toLowerCase(), value]));
}

/** Absolute or bare commands as they are; "./bin/x" against baseDir; undefined when impossible. */
function resolveCommand(command: string, baseDir: string | undefined): string | undefined {
  if (isAbsolute(command) || !command.includes("/")) return command;
  return baseDir ? resolve(baseDir, command) : undefined;
}

function extensionConflicts(languages: readonly LanguageDefinition[]): string[] {
  const owner = new Map<string, string>();
  const problems: string[] = [];
  for (const language of languages) {
    if (!language.enabled) continue;
    for (const extension of Object.keys(language.extensions)) {
      const first = owner.get(extension);
      if (first === undefined) owner.set(extension, language.id);
      else
        problems.push(
          `languages.${language.id}.extensions["${extension}"]: also served by "${first}"; disable one ("enabled": false) or drop the extension from one`,
        );
    }
  }
  return problems;
}

/** The enabled languages from the built-ins and, when given, the languages file at `path`. */
export async function loadLanguages(path?: string): Promise<LanguageServerConfig[]> {
  const builtins = builtinLanguages();
  let definitions: LanguageDefinition[] = builtins;
  if (path) {
    const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new LanguageConfigError(path, [`cannot be read (${error.code ?? error.message})`]);
    });
    definitions = mergeLanguages(builtins, parseLanguagesFile(text, path), path, dirname(resolve(path)));
  }
  return definitions.flatMap(({ enabled, ...language }) => (enabled ? [language] : []));
}

/** A registry of the built-in languages merged with the languages file at `path`, if any. */
export async function loadLanguageRegistry(path?: string): Promise<LanguageRegistry> {
  return new LanguageRegistry(await loadLanguages(path));
}
