// Tenants cannot reach each other, below the gateway's checks too. Tenant acme's workspace tries
// every way a language server could be led into tenant globex's tree — imports by absolute and
// relative path, symlinked files and folders, tsconfig `paths`/`include`/`references` pointing
// there, Python `extraPaths` and a virtualenv `.pth` file — and acme then calls every read tool
// and every write tool through the gateway with the official MCP client. No answer may hold
// globex's canary, and globex's tree must be byte for byte what it was.
// Two deployments: the defaults (language servers sandboxed, one runner for both tenants on a
// shared workspaces root), and tenant-pinned runners without a sandbox, each seeing only its own
// tenant's folder (as separate pods mounting only their tenant's volume would; emulated by running
// each runner under bubblewrap with the other tenant's folder hidden).
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { landlockAbi } from "@lspmesh/lsp-runner";
import {
  chownTree,
  type GatewayProcess,
  isFaultsTier,
  type NatsServer,
  needs,
  type RunnerProcess,
  type RunnerProcessOptions,
  startFolderSwapper,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  UNPRIVILEGED_USER,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const CANARY = `GLOBEX-CANARY-${randomBytes(6).toString("hex")}`;
const LANGUAGES = {
  languages: Object.fromEntries(["go", "cpp", "rust"].map((id) => [id, { enabled: false }])),
};

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

/** Every file under a folder with its SHA-256 (symlinks as their target text). */
function treeHashes(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) Object.assign(out, treeHashes(path, `${name}/`));
    else out[name] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** Both tenants' folders, acme's full of ways into globex's. */
function writeWorkspaces(acmeRoot: string, globexRoot: string): { acme: string; globex: string } {
  const globex = join(globexRoot, "globex", "shop");
  mkdirSync(join(globex, "src"), { recursive: true });
  mkdirSync(join(globex, "py"), { recursive: true });
  writeFileSync(join(globex, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, composite: true } }));
  writeFileSync(
    join(globex, "src/secret.ts"),
    `/** ${CANARY} */\nexport const secret = "${CANARY}" as const;\n/** ${CANARY} */\nexport function globexOnly(): string {\n  return "${CANARY}";\n}\nexport interface Shape {\n  area(): number;\n}\n`,
  );
  writeFileSync(
    join(globex, "py/gsecret.py"),
    `"""${CANARY}"""\nSECRET = "${CANARY}"\n\n\ndef reveal() -> str:\n    """${CANARY}"""\n    return SECRET\n`,
  );

  const acme = join(acmeRoot, "acme", "web");
  mkdirSync(join(acme, "src"), { recursive: true });
  const secretModule = join(globex, "src", "secret");
  writeFileSync(
    join(acme, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, baseUrl: ".", paths: { "@g/*": [`${join(globex, "src")}/*`] } },
      include: ["src", join(globex, "src")],
      references: [{ path: globex }],
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
  writeFileSync(join(globex, "src/victim.ts"), `export const victim = "${CANARY}";\n`);
  writeFileSync(join(globex, "src/scratch.ts"), "export const scratch = 1;\n");
  mkdirSync(join(acme, "race"));
  writeFileSync(join(acme, "race/victim.ts"), "export const victim = 1;\n");
  symlinkSync(join(globex, "src"), join(acme, "race-link"));
  symlinkSync(join(globex, "src/secret.ts"), join(acme, "src/linked.ts"));
  symlinkSync("../../../globex/shop/src/secret.ts", join(acme, "src/relLinked.ts"));
  symlinkSync(join(globex, "src"), join(acme, "linkdir"));
  // Python: extraPaths and a virtualenv whose .pth names globex's folder.
  const sitePackages = join(acme, ".venv/lib/python3.11/site-packages");
  mkdirSync(sitePackages, { recursive: true });
  writeFileSync(join(acme, ".venv/pyvenv.cfg"), "home = /usr/bin\nversion = 3.11.2\n");
  writeFileSync(join(sitePackages, "evil.pth"), `${join(globex, "py")}\n`);
  writeFileSync(
    join(acme, "pyrightconfig.json"),
    JSON.stringify({ extraPaths: [join(globex, "py")], venvPath: ".", venv: ".venv" }),
  );
  writeFileSync(join(acme, "leak.py"), "import gsecret\n\nvalue = gsecret.SECRET\nshown = gsecret.reveal()\n");
  return { acme, globex };
}

interface Deployment {
  gateway: GatewayProcess;
  runners: RunnerProcess[];
  /** Acme's API key (read and write). */
  token: string;
  /** Globex's API key (read and write). */
  globexToken: string;
  acmeDir: string;
  globexDir: string;
  close(): Promise<void>;
}

type Mode = "sandboxed-shared" | "workers-landlock" | "pinned-unsandboxed" | "control-unsandboxed-shared";

/** As root, Landlock alone does not scope /proc/<pid>/environ: workers then run as nobody. */
const asRoot = process.getuid?.() === 0;

async function deploy(mode: Mode): Promise<Deployment> {
  const base = mkdtempSync(join(tmpdir(), `lspmesh-xtenant-${mode}-`));
  // Shared: one workspaces root. Pinned: one root per tenant, each runner seeing only its own.
  const shared = mode !== "pinned-unsandboxed";
  const acmeRoot = join(base, shared ? "workspaces" : "acme-volume");
  const globexRoot = join(base, shared ? "workspaces" : "globex-volume");
  const { globex } = writeWorkspaces(acmeRoot, globexRoot);
  if (mode === "workers-landlock" && asRoot) {
    chmodSync(base, 0o755);
    for (const tenant of ["acme", "globex"]) chownTree(join(acmeRoot, tenant));
  }
  const tenancy = writeTenancyFiles(base, {
    tenants: {
      acme: { workspaces: ["web"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } },
      globex: { workspaces: ["shop"], limits: { callsPerSecond: 1000, concurrentCalls: 32 } },
    },
    keys: {
      acme: { tenant: "acme", scopes: ["lsp:read", "lsp:write"] },
      globex: { tenant: "globex", scopes: ["lsp:read", "lsp:write"] },
    },
  });
  const nats: NatsServer = await startNatsServer({
    secured: {
      tenants: ["acme", "globex"],
      runners: [
        { id: "shared-0" },
        { id: "workers-0" },
        { id: "trusting-0" },
        { id: "acme-0", tenants: ["acme"] },
        { id: "globex-0", tenants: ["globex"] },
      ],
    },
  });
  const runners: RunnerProcess[] = [];
  let gateway: GatewayProcess | undefined;
  const close = async () => {
    await gateway?.stop();
    for (const runner of runners) await runner.stop();
    await nats.close();
    rmSync(base, { recursive: true, force: true });
  };
  // The runners of each mode: workspaces root, id, options.
  const runnerSpecs: Record<Mode, Array<[string, string, RunnerProcessOptions]>> = {
    // What the two deployments guard against: no sandbox, one root, the tenants declared to trust
    // each other (so the runner holds both).
    "control-unsandboxed-shared": [
      [
        acmeRoot,
        "trusting-0",
        {
          languages: LANGUAGES,
          tenants: ["acme", "globex"],
          env: { LSPMESH_SANDBOX: "none", LSPMESH_WORKERS: "off" },
        },
      ],
    ],
    // The default: one worker per tenant, Landlock inside bubblewrap.
    "sandboxed-shared": [[acmeRoot, "shared-0", { languages: LANGUAGES, env: { LSPMESH_SANDBOX: "bwrap" } }]],
    // What a Pod Security "restricted" pod can do: Landlock alone.
    "workers-landlock": [
      [
        acmeRoot,
        "workers-0",
        {
          languages: LANGUAGES,
          env: {
            LSPMESH_SANDBOX: "none",
            ...(asRoot ? { LSPMESH_WORKER_USER: `${UNPRIVILEGED_USER.uid}:${UNPRIVILEGED_USER.gid}` } : {}),
          },
        },
      ],
    ],
    "pinned-unsandboxed": [
      [
        acmeRoot,
        "acme-0",
        {
          languages: LANGUAGES,
          tenants: ["acme"],
          env: { LSPMESH_SANDBOX: "none", LSPMESH_WORKERS: "off" },
          hide: [globexRoot],
        },
      ],
      [
        globexRoot,
        "globex-0",
        {
          languages: LANGUAGES,
          tenants: ["globex"],
          env: { LSPMESH_SANDBOX: "none", LSPMESH_WORKERS: "off" },
          hide: [acmeRoot],
        },
      ],
    ],
  };
  const specs = runnerSpecs[mode];
  try {
    // Every process at once (a gateway may start before its runners); each one started is kept
    // for close() even when another fails.
    const started = await Promise.allSettled([
      startGatewayProcess({ natsUrl: nats, ...tenancy }).then((started) => {
        gateway = started;
      }),
      ...specs.map(([root, id, options]) =>
        startRunnerProcess(root, nats, id, options).then((runner) => void runners.push(runner)),
      ),
    ]);
    for (const outcome of started) if (outcome.status === "rejected") throw outcome.reason;
    const at = gateway!;
    await waitFor("live runners", async () => (await at.liveRunners()) === specs.length);
    return {
      gateway: at,
      runners,
      token: tenancy.tokens.acme,
      globexToken: tenancy.tokens.globex!,
      acmeDir: join(acmeRoot, "acme", "web"),
      globexDir: globex,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Every tool acme may call, aimed at each way into globex's tree. */
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
    { workspace: "web", files: ["src/absImport.ts", "src/viaPaths.ts", "leak.py"], wait_ms: 5_000 },
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

describe("control: one unsandboxed runner holding both tenants", () => {
  test("the same calls do show the other tenant's canary (the suite can fail)", async () => {
    const deployment = await deploy("control-unsandboxed-shared");
    const client = new Client({ name: "cross-tenant-control", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(deployment.gateway.url, {
          requestInit: { headers: { authorization: `Bearer ${deployment.token}` } },
        }),
      );
      const leaked = await waitFor(
        "the canary in hover",
        async () => {
          const hover = (await client.callTool({
            name: "hover",
            arguments: { workspace: "web", file: "src/absImport.ts", symbol: "secret", line: 2 },
          })) as ToolResult;
          return JSON.stringify(hover).includes(CANARY);
        },
        { timeoutMs: 90_000 },
      );
      expect(leaked).toBe(true);
    } finally {
      await client.close();
      await deployment.close();
    }
  }, 180_000);
});

// Landlock-confined tenant workers alone (what a "restricted" pod runs), where the kernel has
// Landlock; and, where bubblewrap works, workers inside bubblewrap (the default there) and pinned
// runners (bubblewrap hides the other tenant's volume, as its own pod would). The control above
// runs without either.
// Pinned runners (the mode before tenant workers) are checked in the faults tier only.
const MODES = [
  ...(landlockAbi() > 0 ? (["workers-landlock"] as const) : []),
  ...(needs("bubblewrap", "crossTenant (sandboxed and pinned runners)")
    ? (["sandboxed-shared", ...(isFaultsTier() ? (["pinned-unsandboxed"] as const) : [])] as const)
    : []),
];
describe.each(MODES)("%s", (mode) => {
  let deployment: Deployment;
  let client: Client;

  beforeAll(async () => {
    deployment = await deploy(mode);
    client = new Client({ name: "cross-tenant", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(deployment.gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${deployment.token}` } },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await deployment?.close();
  });

  test("no read tool answer holds the other tenant's canary, and its tree is unchanged", async () => {
    const before = treeHashes(deployment.globexDir);
    // The servers load the workspace first (cold answers would prove nothing).
    for (const [file, symbol, line] of [
      ["src/shapes.ts", "Square", 2],
      ["leak.py", "value", 3],
    ] as const) {
      await waitFor(
        `a complete answer in ${file}`,
        async () => {
          const hover = (await client.callTool({
            name: "hover",
            arguments: { workspace: "web", file, symbol, line },
          })) as ToolResult & { structuredContent?: { partial?: boolean } };
          return !hover.isError && hover.structuredContent?.partial === false;
        },
        { timeoutMs: 90_000 },
      );
    }
    const leaks: string[] = [];
    const refusals: string[] = [];
    let answered = 0;
    for (const [tool, args] of readCalls()) {
      const result = (await client.callTool({ name: tool, arguments: args }, { timeout: 60_000 })) as ToolResult;
      if (!result.isError) answered++;
      else refusals.push(`${tool}: ${result.content[0]?.text?.split(":")[0]}`);
      if (JSON.stringify(result).includes(CANARY)) leaks.push(`${tool} ${JSON.stringify(args)}`);
    }
    expect(leaks).toEqual([]);
    // The suite is not vacuous: most calls were answered; refusals are the paths out (symlinks) and
    // what a server does not support, never a limit or a failure.
    expect(answered).toBeGreaterThan(readCalls().length / 2);
    expect(
      refusals.filter((refusal) => !/: (OUTSIDE_WORKSPACE|UNSUPPORTED|NOT_FOUND|SYMBOL_NOT_FOUND)$/.test(refusal)),
    ).toEqual([]);
    expect(treeHashes(deployment.globexDir)).toEqual(before);
  }, 600_000);

  test("no write tool changes the other tenant's tree or reveals its canary", async () => {
    const before = treeHashes(deployment.globexDir);
    const leaks: string[] = [];
    // Every code action offered on the importing lines, applied.
    const calls = writeCalls();
    for (const file of ["src/absImport.ts", "src/viaPaths.ts", "src/shapes.ts"]) {
      const listed = (await client.callTool({
        name: "code_actions",
        arguments: { workspace: "web", file, line: 1, end_line: 2 },
      })) as ToolResult & {
        structuredContent?: { actions?: Array<{ title: string }> };
      };
      for (const action of listed.structuredContent?.actions ?? [])
        calls.push(["code_actions", { workspace: "web", file, line: 1, end_line: 2, apply_title: action.title }]);
    }
    for (const [tool, args] of calls) {
      const result = (await client.callTool({ name: tool, arguments: args }, { timeout: 60_000 })) as ToolResult;
      if (JSON.stringify(result).includes(CANARY)) leaks.push(`${tool} ${JSON.stringify(args)}`);
      expect(result.content[0]?.text ?? "", tool).not.toMatch(/^(RATE_LIMITED|UNAVAILABLE|TIMEOUT)/);
    }
    expect(leaks).toEqual([]);
    expect(treeHashes(deployment.globexDir)).toEqual(before);
  }, 300_000);

  // The attacks below run in every mode in the faults tier (npm run test:faults); npm test runs
  // them against Landlock-confined workers alone (what a Pod Security "restricted" pod runs).
  const sharedOrFaults = mode === "workers-landlock" || isFaultsTier();
  test.runIf(sharedOrFaults)(
    "a symlink to the other tenant created after indexing: search_symbols never returns its declarations",
    async () => {
      const search = async (query: string) =>
        (await client.callTool({ name: "search_symbols", arguments: { query } }, { timeout: 60_000 })) as ToolResult;
      await waitFor("acme's index", async () => JSON.stringify(await search("viaAbsolute")).includes("absImport.ts"), {
        timeoutMs: 90_000,
      });
      symlinkSync(join(deployment.globexDir, "src/secret.ts"), join(deployment.acmeDir, "src/lateLink.ts"));
      symlinkSync(join(deployment.globexDir, "src"), join(deployment.acmeDir, "lateDir"));
      writeFileSync(join(deployment.acmeDir, "src/lateMarker.ts"), "export const acmeLateMarker = 1;\n");
      // The index has taken the change in (the real file created at the same moment is found).
      await waitFor(
        "the new file in the index",
        async () => JSON.stringify(await search("acmeLateMarker")).includes("lateMarker.ts"),
        {
          timeoutMs: 30_000,
        },
      );
      for (const query of ["secret", "globexOnly", "victim", "Shape"]) {
        const answer = JSON.stringify(await search(query));
        expect(answer, query).not.toContain(CANARY);
        expect(answer, query).not.toMatch(/lateLink|lateDir/);
      }
    },
    180_000,
  );

  // ≥ 200 attempts in the faults tier (npm run test:faults); a short run in npm test.
  const RACE_ATTEMPTS = isFaultsTier() ? 200 : 20;
  test.runIf(sharedOrFaults)(
    `a folder swapped with a symlink to the other tenant during ${RACE_ATTEMPTS} apply_workspace_edit and rename_file calls: its tree is untouched`,
    async () => {
      const before = treeHashes(deployment.globexDir);
      const insert = { line: 1, column: 1, end_line: 1, end_column: 1, new_text: "// acme was here\n" };
      const outcomes = new Map<string, number>();
      {
        await using swapper = await startFolderSwapper(
          join(deployment.acmeDir, "race"),
          join(deployment.acmeDir, "race-link"),
        );
        for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt++) {
          for (const [tool, args] of [
            [
              "apply_workspace_edit",
              { workspace: "web", edit: { files: [{ file: "race/victim.ts", edits: [insert] }] } },
            ],
            ["rename_file", { workspace: "web", file: "race/victim.ts", new_file: "race/moved.ts", apply: true }],
            ["rename_file", { workspace: "web", file: "race/moved.ts", new_file: "race/victim.ts", apply: true }],
          ] as const) {
            const result = (await client.callTool({ name: tool, arguments: args }, { timeout: 60_000 })) as ToolResult;
            const text = result.content[0]?.text ?? "";
            const code = text.split(":")[0] ?? "";
            const outcome = !result.isError
              ? "applied"
              : /^(OUTSIDE_WORKSPACE|NOT_FOUND|INVALID_ARGUMENT|STALE_EDIT)$/.test(code)
                ? code
                : text.slice(0, 300);
            outcomes.set(`${tool} ${outcome}`, (outcomes.get(`${tool} ${outcome}`) ?? 0) + 1);
            expect(JSON.stringify(result)).not.toContain(CANARY);
          }
        }
        expect(await swapper.stop()).toBeGreaterThan(100);
      }
      const seen = JSON.stringify(Object.fromEntries(outcomes));
      expect(treeHashes(deployment.globexDir), seen).toEqual(before);
      // Both sides of the race were hit, and refusals name the path (never a runner failure).
      expect(
        [...outcomes.keys()].some((key) => key.endsWith(" applied")),
        seen,
      ).toBe(true);
      expect(
        [...outcomes.keys()].filter(
          (key) => !/^\S+ (applied|OUTSIDE_WORKSPACE|NOT_FOUND|INVALID_ARGUMENT|STALE_EDIT)$/.test(key),
        ),
        seen,
      ).toEqual([]);
      const acmeFiles = readdirSync(deployment.acmeDir, { recursive: true }) as string[];
      expect(acmeFiles.filter((path) => path.includes(".lspmesh-"))).toEqual([]);
    },
    600_000,
  );

  test.runIf(sharedOrFaults)(
    "FIFOs as acme's tsconfig and source files stall acme alone: globex's p99 stays under 2 s, and the runner survives their release",
    async () => {
      const fifos = join(deployment.acmeDir, "fifo");
      mkdirSync(fifos);
      writeFileSync(join(fifos, "real.ts"), "export const real = 1;\n");
      for (const name of ["tsconfig.json", "pipe.ts", "base.json"]) {
        execFileSync("mkfifo", [join(fifos, name)]);
      }
      if (mode === "workers-landlock" && asRoot) chownTree(fifos);
      const globex = new Client({ name: "cross-tenant-globex", version: "1.0.0" });
      await globex.connect(
        new StreamableHTTPClientTransport(deployment.gateway.url, {
          requestInit: { headers: { authorization: `Bearer ${deployment.globexToken}` } },
        }),
      );
      try {
        const globexCall = async (name: string, args: Record<string, unknown>) => {
          const started = performance.now();
          const result = (await globex.callTool({ name, arguments: { workspace: "shop", ...args } })) as ToolResult;
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
          return performance.now() - started;
        };
        // Globex warm first (its own cold start is not what is measured).
        await waitFor(
          "globex's server",
          async () => (await globexCall("hover", { file: "src/secret.ts", symbol: "secret", line: 2 })) >= 0,
          {
            timeoutMs: 90_000,
          },
        );
        // Acme: four workspace_symbols (the call that read tsconfig files), and the FIFOs by name.
        const acmeCalls = [
          ...Array.from({ length: 4 }, () => ["workspace_symbols", { workspace: "web", query: "real" }] as const),
          ["document_symbols", { workspace: "web", file: "fifo/pipe.ts" }] as const,
          ["hover", { workspace: "web", file: "fifo/real.ts", line: 1, column: 14 }] as const,
          ["diagnostics", { workspace: "web", files: ["fifo/real.ts", "fifo/pipe.ts"], wait_ms: 3_000 }] as const,
          ["search_symbols", { query: "real" }] as const,
        ].map(([name, args]) =>
          client.callTool({ name, arguments: args }, { timeout: 60_000 }).catch((error: Error) => error),
        );
        const durations: number[] = [];
        const insert = { line: 1, column: 1, end_line: 1, end_column: 1, new_text: "// globex\n" };
        for (let round = 0; round < 15; round++) {
          durations.push(await globexCall("hover", { file: "src/secret.ts", symbol: "globexOnly", line: 4 }));
          durations.push(
            await globexCall("apply_workspace_edit", {
              edit: { files: [{ file: "src/scratch.ts", edits: [insert] }] },
            }),
          );
        }
        durations.sort((a, b) => a - b);
        const p99 = durations[Math.ceil(durations.length * 0.99) - 1] ?? Number.POSITIVE_INFINITY;
        expect(p99, durations.map((d) => d.toFixed(0)).join(" ")).toBeLessThan(2_000);

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
        for (const runner of deployment.runners) expect(runner.child.exitCode).toBeNull();
        await globexCall("hover", { file: "src/secret.ts", symbol: "secret", line: 2 });
        const acmeHover = (await client.callTool({
          name: "hover",
          arguments: { workspace: "web", file: "src/shapes.ts", symbol: "Square", line: 2 },
        })) as ToolResult;
        expect(acmeHover.isError, JSON.stringify(acmeHover.content)).toBeFalsy();
      } finally {
        await globex.close();
      }
    },
    300_000,
  );
});
