// The cross-tenant attacks, for any deployment that serves tenants acme and globex through a
// gateway: runners as local processes (test/e2e crossTenant) or inside the runner image under
// podman (test/deploy). Tenant acme's workspace holds every way a language server could be led
// into tenant globex's tree — imports by absolute and relative path, symlinked files and folders,
// tsconfig `paths`/`include`/`references`, Python `extraPaths` and a virtualenv `.pth` file — and
// acme calls every read and write tool, races a folder swap against edits, adds links after
// indexing, plants FIFOs, and runs its own code as a configured language server.
// Each attack returns the problems it found (empty: held); the suites assert that. Files are
// written from the test's side of the mount; paths inside them (import targets, symlink targets)
// are the runner's, which differ when the runner sees the workspaces root at another path.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chownTree } from "./fixtures.js";
import { startFolderSwapper } from "./folderSwapper.js";
import { isFaultsTier } from "./fuzz.js";
import { ATTACK_TARGETS_FILE, type AttackAttempt, type AttackTargets } from "./languageServerAttacker.js";
import { waitFor } from "./waitFor.js";

export type { AttackAttempt, AttackTargets } from "./languageServerAttacker.js";

/** The attacker language server, a program of Node built-ins only (copy or mount it where a runner runs). */
export const LANGUAGE_SERVER_ATTACKER = fileURLToPath(new URL("./languageServerAttacker.js", import.meta.url));

/** The languages-file entry running the attacker for `.evil` files with `node`. */
export function attackerLanguage(node: string, script: string): Record<string, unknown> {
  return { extensions: { ".evil": "evil" }, command: node, args: [script] };
}

export interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
}

/** One MCP tool call as one tenant (its own client and API key). */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

export interface CrossTenantWorkspaces {
  /** Acme's workspace `web` and globex's `shop`, as the test reaches them. */
  acmeDir: string;
  globexDir: string;
  /** In every answer that leaks globex's files. */
  canary: string;
  /** A path of the test's side as the runner sees it. */
  runnerPath(path: string): string;
  /** Gives what the test creates to the user workers run as (without an owner: left as made). */
  own(path: string): void;
}

export interface CrossTenantWorkspacesOptions {
  /** The workspaces root holding acme's folder, and globex's (the same one when the runner is shared). */
  acmeRoot: string;
  globexRoot: string;
  canary: string;
  /** Maps a path under the roots to the runner's view of it (default: the same path). */
  runnerPath?: (path: string) => string;
  /** The user tenant workers run as, when the test's user is another (root): the tenant trees become its. */
  owner?: { uid: number; gid: number };
}

/** Both tenants' folders, acme's full of ways into globex's. */
export function writeCrossTenantWorkspaces(options: CrossTenantWorkspacesOptions): CrossTenantWorkspaces {
  const { canary } = options;
  const seen = options.runnerPath ?? ((path: string) => path);
  const globex = join(options.globexRoot, "globex", "shop");
  mkdirSync(join(globex, "src"), { recursive: true });
  mkdirSync(join(globex, "py"), { recursive: true });
  writeFileSync(
    join(globex, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, composite: true, lib: ["ES2022"], types: [] } }),
  );
  writeFileSync(
    join(globex, "src/secret.ts"),
    `/** ${canary} */\nexport const secret = "${canary}" as const;\n/** ${canary} */\nexport function globexOnly(): string {\n  return "${canary}";\n}\nexport interface Shape {\n  area(): number;\n}\n`,
  );
  writeFileSync(
    join(globex, "py/gsecret.py"),
    `"""${canary}"""\nSECRET = "${canary}"\n\n\ndef reveal() -> str:\n    """${canary}"""\n    return SECRET\n`,
  );

  const acme = join(options.acmeRoot, "acme", "web");
  mkdirSync(join(acme, "src"), { recursive: true });
  const secretModule = seen(join(globex, "src", "secret"));
  writeFileSync(
    join(acme, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        lib: ["ES2022"],
        types: [],
        baseUrl: ".",
        paths: { "@g/*": [`${seen(join(globex, "src"))}/*`] },
      },
      include: ["src", seen(join(globex, "src"))],
      references: [{ path: seen(globex) }],
    }),
  );
  writeFileSync(
    join(acme, "src/absImport.ts"),
    `import { secret } from "${secretModule}";\nexport const viaAbsolute = secret;\n`,
  );
  writeFileSync(
    join(acme, "src/relImport.ts"),
    `import { globexOnly } from "../../../globex/shop/src/secret";\nexport const viaRelative = globexOnly();\n`,
  );
  writeFileSync(
    join(acme, "src/viaPaths.ts"),
    `import { secret } from "@g/secret";\nexport const viaPaths = secret;\n`,
  );
  writeFileSync(
    join(acme, "src/viaLinkDir.ts"),
    `import { secret } from "../linkdir/secret";\nexport const viaLinkDir = secret;\n`,
  );
  writeFileSync(
    join(acme, "src/shapes.ts"),
    `import type { Shape } from "${secretModule}";\nexport class Square implements Shape {\n  area(): number {\n    return 4;\n  }\n}\nexport const s: Shape = new Square();\n`,
  );
  // The race: acme's `race` folder and `race-link`, a symlink to globex's src, swapped in a loop.
  writeFileSync(join(globex, "src/victim.ts"), `export const victim = "${canary}";\n`);
  writeFileSync(join(globex, "src/scratch.ts"), "export const scratch = 1;\n");
  mkdirSync(join(acme, "race"));
  writeFileSync(join(acme, "race/victim.ts"), "export const victim = 1;\n");
  symlinkSync(seen(join(globex, "src")), join(acme, "race-link"));
  symlinkSync(seen(join(globex, "src/secret.ts")), join(acme, "src/linked.ts"));
  symlinkSync("../../../globex/shop/src/secret.ts", join(acme, "src/relLinked.ts"));
  symlinkSync(seen(join(globex, "src")), join(acme, "linkdir"));
  // Python: extraPaths and a virtualenv whose .pth names globex's folder.
  const sitePackages = join(acme, ".venv/lib/python3.11/site-packages");
  mkdirSync(sitePackages, { recursive: true });
  writeFileSync(join(acme, ".venv/pyvenv.cfg"), "home = /usr/bin\nversion = 3.11.2\n");
  writeFileSync(join(sitePackages, "evil.pth"), `${seen(join(globex, "py"))}\n`);
  writeFileSync(
    join(acme, "pyrightconfig.json"),
    JSON.stringify({ extraPaths: [seen(join(globex, "py"))], venvPath: ".", venv: ".venv" }),
  );
  writeFileSync(join(acme, "leak.py"), "import gsecret\n\nvalue = gsecret.SECRET\nshown = gsecret.reveal()\n");
  // The attacker's own file type (a configured language server runs on it where the deployment has one).
  writeFileSync(join(acme, "probe.evil"), "hover here\n");
  const owner = options.owner;
  // Links themselves, never what they point at (globex's files).
  const own = (path: string) => {
    if (!owner) return;
    if (lstatSync(path).isDirectory()) chownTree(path, owner);
    else lchownSync(path, owner.uid, owner.gid);
  };
  own(join(options.acmeRoot, "acme"));
  own(join(options.globexRoot, "globex"));
  return { acmeDir: acme, globexDir: globex, canary, runnerPath: seen, own };
}

/** Every file under a folder with its SHA-256 (symlinks as their target text). */
export function treeHashes(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) Object.assign(out, treeHashes(path, `${name}/`));
    else out[name] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** A deployment under attack: acme's and globex's calls through the gateway, and their folders. */
export interface CrossTenantDeployment {
  acme: CallTool;
  globex: CallTool;
  workspaces: CrossTenantWorkspaces;
  /** True while every runner of the deployment still runs (none crashed under the attacks). */
  runnersAlive(): Promise<boolean>;
  /**
   * Run the folder swapper at the lowest CPU priority: its busy loop would otherwise take a whole
   * core of the two a test machine has from the servers (where the runner is a container, all its
   * processes share one scheduling group that weighs as much as the loop alone), so the race would
   * mostly measure CPU starvation. In a cluster the attacker's loop runs in its own pod, one
   * scheduling group among others.
   */
  niceSwapper?: boolean;
}

/** Differences between two tree snapshots, named by file. */
function treeChanges(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).map((name) => `globex's ${name} changed`);
}

const leaksCanary = (result: unknown, canary: string) => JSON.stringify(result).includes(canary);
const codeOf = (result: ToolResult) => result.content[0]?.text?.split(":")[0] ?? "";

/** Every read tool acme may call, aimed at each way into globex's tree. */
function readCalls(): Array<[string, Record<string, unknown>]> {
  const at = (file: string, symbol: string, line: number) => ({ workspace: "web", file, symbol, line });
  const positions = [
    at("src/absImport.ts", "secret", 2),
    at("src/relImport.ts", "globexOnly", 2),
    at("src/viaPaths.ts", "secret", 2),
    at("src/viaLinkDir.ts", "secret", 2),
    at("src/shapes.ts", "Shape", 7),
    at("leak.py", "SECRET", 3),
    at("leak.py", "reveal", 4),
  ];
  const calls: Array<[string, Record<string, unknown>]> = [];
  for (const position of positions) {
    for (const tool of [
      "find_definition",
      "find_type_definition",
      "find_implementations",
      "find_references",
      "hover",
      "completions",
      "signature_help",
    ])
      calls.push([tool, position]);
    calls.push(["call_hierarchy", { ...position, direction: "outgoing" }]);
    calls.push(["call_hierarchy", { ...position, direction: "incoming" }]);
    calls.push(["type_hierarchy", { ...position, direction: "supertypes" }]);
  }
  for (const file of [
    "src/absImport.ts",
    "src/relImport.ts",
    "src/viaPaths.ts",
    "src/shapes.ts",
    "leak.py",
    "src/linked.ts",
    "src/relLinked.ts",
    "linkdir/secret.ts",
  ]) {
    calls.push(["document_symbols", { workspace: "web", file }]);
    calls.push(["inlay_hints", { workspace: "web", file }]);
    calls.push(["code_actions", { workspace: "web", file, line: 1 }]);
    calls.push(["format_document", { workspace: "web", file }]);
  }
  for (const query of ["secret", "globexOnly", "SECRET", "reveal", "Shape"]) {
    calls.push(["workspace_symbols", { workspace: "web", query }]);
    calls.push(["search_symbols", { query }]);
  }
  calls.push(["diagnostics", { workspace: "web", wait_ms: 5_000 }]);
  calls.push([
    "diagnostics",
    {
      workspace: "web",
      files: ["src/absImport.ts", "src/viaPaths.ts", "leak.py"],
      wait_ms: 5_000,
    },
  ]);
  return calls;
}

function writeCalls(): Array<[string, Record<string, unknown>]> {
  const insert = { line: 1, column: 1, end_line: 1, end_column: 1, new_text: "// acme was here\n" };
  return [
    [
      "rename_symbol",
      { workspace: "web", file: "src/absImport.ts", symbol: "secret", line: 2, new_name: "renamed", apply: true },
    ],
    [
      "rename_symbol",
      { workspace: "web", file: "src/relImport.ts", symbol: "globexOnly", line: 2, new_name: "taken", apply: true },
    ],
    ["rename_symbol", { workspace: "web", file: "leak.py", symbol: "SECRET", line: 3, new_name: "OWNED", apply: true }],
    ["format_document", { workspace: "web", file: "src/linked.ts", apply: true }],
    ["rename_file", { workspace: "web", file: "src/relLinked.ts", new_file: "relLinked.ts", apply: true }],
    ["rename_file", { workspace: "web", file: "src/linked.ts", new_file: "moved.ts", apply: true }],
    ["apply_workspace_edit", { workspace: "web", edit: { files: [{ file: "src/linked.ts", edits: [insert] }] } }],
    ["apply_workspace_edit", { workspace: "web", edit: { files: [{ file: "linkdir/secret.ts", edits: [insert] }] } }],
    [
      "apply_workspace_edit",
      { workspace: "web", edit: { files: [{ file: "../../globex/shop/src/secret.ts", edits: [insert] }] } },
    ],
  ];
}

/** Waits until acme's servers have loaded the workspace (cold answers would prove nothing). */
async function untilWarm(deployment: CrossTenantDeployment): Promise<void> {
  const files = [
    ["src/shapes.ts", "Square", 2],
    ["leak.py", "value", 3],
  ] as const;
  for (const [file, symbol, line] of files) {
    await waitFor(
      `a complete answer in ${file}`,
      async () => {
        const hover = await deployment.acme("hover", { workspace: "web", file, symbol, line });
        return !hover.isError && (hover.structuredContent as { partial?: boolean } | undefined)?.partial === false;
      },
      { timeoutMs: 90_000 },
    );
  }
}

/** Every read tool: no answer holds globex's canary, most are answered, refusals are path errors, globex's tree unchanged. */
export async function readToolsAttack(deployment: CrossTenantDeployment): Promise<string[]> {
  const { globexDir, canary } = deployment.workspaces;
  const before = treeHashes(globexDir);
  await untilWarm(deployment);
  const problems: string[] = [];
  const refusals: string[] = [];
  const calls = readCalls();
  let answered = 0;
  for (const [tool, args] of calls) {
    const result = await deployment.acme(tool, args);
    if (!result.isError) answered++;
    else refusals.push(`${tool}: ${codeOf(result)}`);
    if (leaksCanary(result, canary)) problems.push(`leak: ${tool} ${JSON.stringify(args)}`);
  }
  // Not vacuous: most calls were answered; refusals are the paths out (symlinks) and what a server
  // does not support, never a limit or a failure.
  if (answered <= calls.length / 2) problems.push(`only ${answered} of ${calls.length} calls answered`);
  for (const refusal of refusals) {
    if (!/: (OUTSIDE_WORKSPACE|UNSUPPORTED|NOT_FOUND|SYMBOL_NOT_FOUND)$/.test(refusal))
      problems.push(`unexpected refusal ${refusal}`);
  }
  problems.push(...treeChanges(before, treeHashes(globexDir)));
  return problems;
}

/** Every write tool, and every code action offered on the importing lines applied: globex's tree unchanged, no canary. */
export async function writeToolsAttack(deployment: CrossTenantDeployment): Promise<string[]> {
  const { globexDir, canary } = deployment.workspaces;
  const before = treeHashes(globexDir);
  const problems: string[] = [];
  const calls = writeCalls();
  for (const file of ["src/absImport.ts", "src/viaPaths.ts", "src/shapes.ts"]) {
    const listed = await deployment.acme("code_actions", { workspace: "web", file, line: 1, end_line: 2 });
    const actions = (listed.structuredContent as { actions?: Array<{ title: string }> } | undefined)?.actions ?? [];
    for (const action of actions)
      calls.push(["code_actions", { workspace: "web", file, line: 1, end_line: 2, apply_title: action.title }]);
  }
  for (const [tool, args] of calls) {
    const result = await deployment.acme(tool, args);
    if (leaksCanary(result, canary)) problems.push(`leak: ${tool} ${JSON.stringify(args)}`);
    const text = result.content[0]?.text ?? "";
    if (/^(RATE_LIMITED|UNAVAILABLE|TIMEOUT)/.test(text)) problems.push(`${tool} failed: ${text.slice(0, 300)}`);
  }
  problems.push(...treeChanges(before, treeHashes(globexDir)));
  return problems;
}

/** Links to globex's file and folder made after acme's index was built: search_symbols never returns their declarations. */
export async function lateSymlinkAttack(deployment: CrossTenantDeployment): Promise<string[]> {
  const { acmeDir, globexDir, canary, runnerPath, own } = deployment.workspaces;
  const search = (query: string) => deployment.acme("search_symbols", { query });
  // Declared in src/absImport.ts, or wherever an earlier attack's applied code action moved it.
  const declared = async (name: string) =>
    ((await search(name)).structuredContent as { symbols?: Array<{ name: string }> } | undefined)?.symbols?.some(
      (symbol) => symbol.name === name,
    ) ?? false;
  await waitFor("acme's index", () => declared("viaAbsolute"), { timeoutMs: 90_000 });
  symlinkSync(runnerPath(join(globexDir, "src/secret.ts")), join(acmeDir, "src/lateLink.ts"));
  symlinkSync(runnerPath(join(globexDir, "src")), join(acmeDir, "lateDir"));
  writeFileSync(join(acmeDir, "src/lateMarker.ts"), "export const acmeLateMarker = 1;\n");
  for (const name of ["src/lateLink.ts", "lateDir", "src/lateMarker.ts"]) own(join(acmeDir, name));
  // The index has taken the change in (the real file created at the same moment is found).
  await waitFor(
    "the new file in the index",
    async () => JSON.stringify(await search("acmeLateMarker")).includes("lateMarker.ts"),
    { timeoutMs: 30_000 },
  );
  const problems: string[] = [];
  for (const query of ["secret", "globexOnly", "victim", "Shape"]) {
    const answer = JSON.stringify(await search(query));
    if (answer.includes(canary)) problems.push(`search_symbols ${query}: the canary`);
    if (/lateLink|lateDir/.test(answer)) problems.push(`search_symbols ${query}: a late link's declarations`);
  }
  return problems;
}

/** Attempts of the folder-swap race: 200 in the faults tier, a short run otherwise. */
export const RACE_ATTEMPTS = isFaultsTier() ? 200 : 10;

/**
 * The swapper's pause after every 64 swaps, ms: none in the faults tier (as fast as it can); 5 in
 * the short run, about 6 500 swaps a second. Unpaced, the swaps' inotify events keep acme's own
 * tsserver (which watches the folder itself) at 100 % CPU, so a rename_file now and then waits out
 * its 25 s deadline for workspace/willRenameFiles: acme's availability, not what the race checks,
 * but 4–56 s per run. Paced, both sides are still hit in every run (applied, OUTSIDE_WORKSPACE,
 * NOT_FOUND) and the run takes about 7 s.
 */
const RACE_SWAP_PAUSE_MS = isFaultsTier() ? 0 : 5;

/**
 * Whether an attempt's calls ask for the diagnostics delta. The write and its path checks are the
 * same either way; the delta only adds waiting around them (the "before" diagnostics, then up to
 * 10 s for the servers to report under the storm: 6–11 s per call measured on a 2-core machine).
 * The short run asks for none; the faults tier alternates, so both paths meet the swaps.
 */
function withDiagnosticsDelta(attempt: number): boolean {
  return isFaultsTier() && attempt % 2 === 1;
}

/**
 * acme's `race` folder swapped with `race-link` (a symlink to globex's src) in a loop, from the
 * test's side (renameat2 RENAME_EXCHANGE), during apply_workspace_edit and rename_file calls:
 * globex's tree untouched, both sides of the race hit, every refusal a path error, no staged file left.
 */
export async function folderSwapRace(deployment: CrossTenantDeployment, attempts = RACE_ATTEMPTS): Promise<string[]> {
  const { acmeDir, globexDir, canary } = deployment.workspaces;
  // A server still loading the workspace would be slowed further by the swaps (not what is tested).
  await untilWarm(deployment);
  const before = treeHashes(globexDir);
  const insert = { line: 1, column: 1, end_line: 1, end_column: 1, new_text: "// acme was here\n" };
  const outcomes = new Map<string, number>();
  const problems: string[] = [];
  let swaps: number;
  {
    await using swapper = await startFolderSwapper(
      join(acmeDir, "race"),
      join(acmeDir, "race-link"),
      RACE_SWAP_PAUSE_MS,
    );
    if (deployment.niceSwapper) {
      const swappers = childrenRunning(join(acmeDir, "race-link"));
      if (swappers.length !== 1) problems.push(`${swappers.length} swapper processes found to lower`);
      for (const pid of swappers) setPriority(pid, 19);
    }
    // Both sides of the race must be hit: a short run goes on past `attempts` (up to the faults
    // tier's 200) until a call has landed on the real folder; refusals alone prove nothing.
    const bothSidesHit = () => [...outcomes.keys()].some((key) => key.endsWith(" applied"));
    for (let attempt = 0; attempt < Math.max(attempts, 200) && (attempt < attempts || !bothSidesHit()); attempt++) {
      const diagnostics = withDiagnosticsDelta(attempt);
      for (const [tool, args] of [
        [
          "apply_workspace_edit",
          { workspace: "web", edit: { files: [{ file: "race/victim.ts", edits: [insert] }] }, diagnostics },
        ],
        [
          "rename_file",
          { workspace: "web", file: "race/victim.ts", new_file: "race/moved.ts", apply: true, diagnostics },
        ],
        [
          "rename_file",
          { workspace: "web", file: "race/moved.ts", new_file: "race/victim.ts", apply: true, diagnostics },
        ],
      ] as const) {
        const result = await deployment.acme(tool, args);
        const code = codeOf(result);
        const outcome = !result.isError
          ? "applied"
          : /^(OUTSIDE_WORKSPACE|NOT_FOUND|INVALID_ARGUMENT|STALE_EDIT)$/.test(code)
            ? code
            : (result.content[0]?.text ?? "").slice(0, 300);
        outcomes.set(`${tool} ${outcome}`, (outcomes.get(`${tool} ${outcome}`) ?? 0) + 1);
        if (leaksCanary(result, canary)) problems.push(`leak: ${tool}`);
      }
    }
    swaps = await swapper.stop();
  }
  const seen = JSON.stringify(Object.fromEntries(outcomes));
  if (swaps <= 100) problems.push(`only ${swaps} swaps: the race was not run`);
  problems.push(...treeChanges(before, treeHashes(globexDir)).map((change) => `${change} (${seen})`));
  if (![...outcomes.keys()].some((key) => key.endsWith(" applied"))) problems.push(`nothing applied: ${seen}`);
  // acme's own calls may time out while acme hammers its own folder (tsserver's own watchers chase
  // every swap), and after repeated timeouts its server is restarted, then refused for a while
  // (UNAVAILABLE, SERVER_FAILED, answered at once with when to retry): that is acme's availability,
  // not a way into globex. The refusals follow from a few timeouts and come in runs as long as the
  // back-off (one run on a slow machine: 7 timeouts, then 200 refusals of 600 calls), so only the
  // timeouts are counted: a third of the calls at most, and a runner that stops answering fails here.
  const calls = [...outcomes.values()].reduce((sum, n) => sum + n, 0);
  const count = (kind: RegExp) => [...outcomes].filter(([key]) => kind.test(key)).reduce((sum, [, n]) => sum + n, 0);
  const timedOut = count(ACME_TIMED_OUT);
  const unanswered = count(ACME_UNAVAILABLE);
  if (timedOut * 3 > calls) problems.push(`${timedOut} of ${calls} calls timed out: ${seen}`);
  for (const key of outcomes.keys()) {
    if (
      !/^\S+ (applied|OUTSIDE_WORKSPACE|NOT_FOUND|INVALID_ARGUMENT|STALE_EDIT)$/.test(key) &&
      !ACME_UNAVAILABLE.test(key)
    )
      problems.push(`unexpected outcome ${key}`);
  }
  const staged = () =>
    (readdirSync(acmeDir, { recursive: true }) as string[]).filter((name) => name.includes(".lspmesh-"));
  // A timed-out edit may still be finishing in the runner: its staged files go when it ends.
  if (unanswered > 0)
    await waitFor("timed-out edits to end", () => staged().length === 0, { timeoutMs: 60_000 }).catch(() => {});
  for (const path of staged()) problems.push(`left behind: ${path}`);
  // The attacks after this one start from a server that answers acme again (a failed server is
  // refused for 60 s, then started on the next call).
  if (unanswered > 0) {
    await waitFor("acme's server to answer again", async () => !(await deployment.acme("hover", ACME_HOVER)).isError, {
      timeoutMs: 120_000,
      intervalMs: 2_000,
    }).catch(() => problems.push("acme's server did not answer again within 120 s of the race"));
  }
  return problems;
}

/** A hover acme's own server answers once it works: after the race and after the FIFOs' release. */
const ACME_HOVER = { workspace: "web", file: "src/shapes.ts", symbol: "Square", line: 2 };

/** Outcomes of acme's own calls while its folder is swapped in a loop that only cost acme its answer. */
const ACME_UNAVAILABLE = / (TIMEOUT|UNAVAILABLE|SERVER_FAILED): /;
const ACME_TIMED_OUT = / TIMEOUT: /;

/** This process's children whose command line names `argument`. */
function childrenRunning(argument: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const ppid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(argument);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * FIFOs as acme's tsconfig and source files (made from the test's side): they stall acme alone —
 * globex's hover and edit p99 stays under 2 s — and after their release every runner still runs
 * and both tenants are answered.
 */
export async function fifoAttack(deployment: CrossTenantDeployment): Promise<string[]> {
  const { acmeDir, own } = deployment.workspaces;
  const fifos = join(acmeDir, "fifo");
  mkdirSync(fifos);
  writeFileSync(join(fifos, "real.ts"), "export const real = 1;\n");
  for (const name of ["tsconfig.json", "pipe.ts", "base.json"]) execFileSync("mkfifo", [join(fifos, name)]);
  own(fifos);
  const globexCall = async (name: string, args: Record<string, unknown>) => {
    const started = performance.now();
    const result = await deployment.globex(name, { workspace: "shop", ...args });
    if (result.isError) throw new Error(`globex's ${name} failed: ${JSON.stringify(result.content)}`);
    return performance.now() - started;
  };
  // Globex warm first (its own cold start is not what is measured).
  await waitFor(
    "globex's server",
    async () => (await globexCall("hover", { file: "src/secret.ts", symbol: "secret", line: 2 })) >= 0,
    { timeoutMs: 90_000 },
  );
  // Acme: four workspace_symbols (the call that read tsconfig files), and the FIFOs by name.
  const acmeCalls = [
    ...Array.from({ length: 4 }, () => ["workspace_symbols", { workspace: "web", query: "real" }] as const),
    ["document_symbols", { workspace: "web", file: "fifo/pipe.ts" }] as const,
    ["hover", { workspace: "web", file: "fifo/real.ts", line: 1, column: 14 }] as const,
    ["diagnostics", { workspace: "web", files: ["fifo/real.ts", "fifo/pipe.ts"], wait_ms: 3_000 }] as const,
    ["search_symbols", { query: "real" }] as const,
  ].map(([name, args]) => deployment.acme(name, args).catch((error: Error) => error));
  const durations: number[] = [];
  const insert = { line: 1, column: 1, end_line: 1, end_column: 1, new_text: "// globex\n" };
  for (let round = 0; round < 15; round++) {
    durations.push(await globexCall("hover", { file: "src/secret.ts", symbol: "globexOnly", line: 4 }));
    durations.push(
      await globexCall("apply_workspace_edit", { edit: { files: [{ file: "src/scratch.ts", edits: [insert] }] } }),
    );
  }
  durations.sort((a, b) => a - b);
  const problems: string[] = [];
  const p99 = durations[Math.ceil(durations.length * 0.99) - 1] ?? Number.POSITIVE_INFINITY;
  if (p99 >= 2_000) problems.push(`globex's p99 ${p99.toFixed(0)} ms: ${durations.map((d) => d.toFixed(0)).join(" ")}`);

  // Release every FIFO a reader may wait on, then everything still answers.
  for (const name of ["tsconfig.json", "pipe.ts", "base.json"]) {
    try {
      const fd = openSync(join(fifos, name), constants.O_WRONLY | constants.O_NONBLOCK);
      writeSync(fd, "{}");
      closeSync(fd);
    } catch {
      // ENXIO: no reader waits on it.
    }
  }
  await Promise.all(acmeCalls);
  if (!(await deployment.runnersAlive())) problems.push("a runner died");
  await globexCall("hover", { file: "src/secret.ts", symbol: "secret", line: 2 });
  const acmeHover = await deployment.acme("hover", ACME_HOVER);
  if (acmeHover.isError) problems.push(`acme's hover after the release: ${JSON.stringify(acmeHover.content)}`);
  return problems;
}

/**
 * acme's own code as a configured language server (`.evil` files, attackerLanguage): on hover it
 * tries `targets` (globex's file and the runner's secret file by the runner's paths, the runner's
 * NATS password in any /proc/<pid>/environ, the runner's and NATS's TCP ports). Every attempt must
 * fail. `control` runs the same attempts unconfined where the runner runs (a process of the runner's
 * user, outside any worker): each must succeed there, or the attack proves nothing.
 */
export async function languageServerAttack(
  deployment: CrossTenantDeployment,
  targets: AttackTargets,
  control: (targetsFile: string) => Promise<AttackAttempt[]>,
): Promise<string[]> {
  const { acmeDir, own } = deployment.workspaces;
  const targetsFile = join(acmeDir, ATTACK_TARGETS_FILE);
  writeFileSync(targetsFile, JSON.stringify(targets));
  own(targetsFile);
  const problems: string[] = [];
  const expected = targets.files.length + 1 + targets.endpoints.length;
  const unconfined = await control(deployment.workspaces.runnerPath(targetsFile));
  if (unconfined.length !== expected || unconfined.some((attempt) => !attempt.ok))
    problems.push(`control: unconfined, every attempt should succeed: ${JSON.stringify(unconfined)}`);
  const answer = await deployment.acme("hover", { workspace: "web", file: "probe.evil", line: 1, column: 1 });
  const text = answer.content.map((part) => part.text ?? "").join("\n");
  const json = text.slice(text.indexOf("["), text.lastIndexOf("]") + 1);
  let attempts: AttackAttempt[];
  try {
    attempts = JSON.parse(json) as AttackAttempt[];
  } catch {
    return [...problems, `no attempts in the attacker's hover: ${text.slice(0, 500)}`];
  }
  if (attempts.length !== expected) problems.push(`${attempts.length} attempts, ${expected} expected: ${json}`);
  for (const attempt of attempts) if (attempt.ok) problems.push(`the attacker got ${JSON.stringify(attempt)}`);
  // Files: denied by the kernel (EACCES from Landlock; ENOENT where bubblewrap hides them).
  for (const attempt of attempts.filter((a) => a.what.startsWith("read ")))
    if (!/^(EACCES|ENOENT)$/.test(attempt.code ?? "")) problems.push(`read refused oddly: ${JSON.stringify(attempt)}`);
  if (text.includes(deployment.workspaces.canary)) problems.push("globex's canary in the attacker's answer");
  if (text.includes(targets.environCanary)) problems.push("the runner's secret in the attacker's answer");
  return problems;
}

/** The attacker run unconfined by this process's Node (the control where runners are local processes). */
export async function localAttackControl(targetsFile: string): Promise<AttackAttempt[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [LANGUAGE_SERVER_ATTACKER, targetsFile]);
  return JSON.parse(stdout) as AttackAttempt[];
}
