// The layering rules of CONTRIBUTING.md, checked on the real import graph: contracts and
// libraries ← services ← apps, no service reaching into another, the language-server layer
// knowing nothing of gRPC, MCP or NATS, and no import cycles.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

type Layer = "contract" | "library" | "service" | "app" | "test-kit" | "top";
/** Higher layers may depend on lower ones, never the reverse. Libraries may use each other (acyclic). */
const RANK: Record<Layer, number> = { contract: 0, library: 1, "test-kit": 1.5, service: 2, app: 3, top: 4 };

interface Workspace {
  name: string;
  dir: string;
  layer: Layer;
  manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
}

function layerOf(dir: string): Layer {
  if (dir === "proto") return "contract";
  if (dir.startsWith("packages/")) return "library";
  if (dir.startsWith("services/")) return "service";
  if (dir.startsWith("apps/")) return "app";
  if (dir === "test/kit") return "test-kit";
  return "top";
}

const workspaces: Workspace[] = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).workspaces as string[])
  .flatMap((pattern) =>
    pattern.endsWith("/*")
      ? readdirSync(join(ROOT, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  )
  .filter((dir) => existsSync(join(ROOT, dir, "package.json")))
  .map((dir) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));
    return { name: manifest.name as string, dir, layer: layerOf(dir), manifest };
  });
const byName = new Map(workspaces.map((workspace) => [workspace.name, workspace]));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (["node_modules", "dist", ".turbo", "fixtures", "node22"].includes(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
    }
  };
  for (const sub of ["src", "test", "."]) {
    const at = join(ROOT, dir, sub);
    if (sub === ".") {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        if (entry.isFile() && /\.(ts|mjs)$/.test(entry.name)) out.push(join(at, entry.name));
      }
    } else if (existsSync(at)) walk(at);
  }
  return out;
}

interface Import {
  from: string;
  specifier: string;
}

// Anything under a test/ folder, the top-level test/ packages included (their src/ are test helpers).
const isTestFile = (file: string) => /\.test\.ts$/.test(file) || /(^|\/)test\//.test(relative(ROOT, file));

const files = workspaces.flatMap((workspace) =>
  sourceFiles(workspace.dir).map((file) => ({ workspace, file, test: isTestFile(file) })),
);

function importsOf(file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((imported) => ({ from: file, specifier: imported.fileName }));
}

/** The file a relative specifier names (".js" in ESM source stands for the ".ts" file). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    `${base}.ts`,
    join(base, "index.ts"),
  ];
  return candidates.find((candidate) => existsSync(candidate) && !candidate.endsWith("/"));
}

/** `@lspmesh/gateway/x` → { name: "@lspmesh/gateway", subpath: "x" } for workspace packages. */
function workspaceTarget(specifier: string): { target: Workspace; subpath: string } | undefined {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  const target = byName.get(name);
  if (!target) return undefined;
  return { target, subpath: parts.slice(specifier.startsWith("@") ? 2 : 1).join("/") };
}

const rel = (file: string) => relative(ROOT, file);

describe("layers", () => {
  test("relative imports stay inside their own package", () => {
    const escaping = files.flatMap(({ workspace, file }) =>
      importsOf(file)
        .filter((imported) => imported.specifier.startsWith("."))
        .map((imported) => ({ imported, path: resolve(dirname(file), imported.specifier) }))
        .filter(({ path }) => relative(join(ROOT, workspace.dir), path).startsWith(".."))
        // The one shared vitest configuration at the root is every package's, by design.
        .filter(({ path }) => path !== join(ROOT, "vitest.shared.js"))
        .map(({ imported }) => `${rel(file)} → ${imported.specifier}`),
    );
    expect(escaping).toEqual([]);
  });

  test("packages import only lower layers, through their public entry point", () => {
    const wrong = files.flatMap(({ workspace, file, test: isTest }) =>
      importsOf(file).flatMap((imported) => {
        const found = workspaceTarget(imported.specifier);
        if (!found || found.target === workspace) return [];
        const { target, subpath } = found;
        const problems: string[] = [];
        if (subpath !== "") problems.push("deep import past the package's public face");
        // Benchmarks start processes and clusters the way the tests do (never shipped either).
        if (target.layer === "test-kit" && !isTest && workspace.dir !== "bench")
          problems.push("the test kit outside tests");
        if (target.layer === "top") problems.push("imports a test or benchmark package");
        else if (workspace.layer !== "top" && RANK[target.layer] > RANK[workspace.layer])
          problems.push(`${workspace.layer} imports ${target.layer}`);
        else if (workspace.layer === "service" && target.layer === "service")
          problems.push("a service imports another service");
        return problems.map((problem) => `${rel(file)} → ${imported.specifier}: ${problem}`);
      }),
    );
    expect(wrong).toEqual([]);
  });

  test("package.json dependencies follow the same layers (the test kit only as a dev dependency)", () => {
    const wrong = workspaces.flatMap((workspace) => {
      const problems: string[] = [];
      for (const [section, deps] of Object.entries({
        dependencies: workspace.manifest.dependencies ?? {},
        devDependencies: workspace.manifest.devDependencies ?? {},
      })) {
        for (const name of Object.keys(deps)) {
          const target = byName.get(name);
          if (!target) continue;
          if (target.layer === "test-kit" && section === "dependencies" && workspace.layer !== "top")
            problems.push(`${workspace.name}: ${name} in dependencies (dev only)`);
          if (workspace.layer !== "top" && target.layer !== "test-kit" && RANK[target.layer] > RANK[workspace.layer])
            problems.push(`${workspace.name} (${workspace.layer}) depends on ${name} (${target.layer})`);
          if (workspace.layer === "service" && target.layer === "service")
            problems.push(`${workspace.name} depends on another service, ${name}`);
        }
      }
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  test("the contract (proto/) imports nothing internal: only protobuf and itself", () => {
    const wrong = files
      .filter(({ workspace, test: isTest }) => workspace.layer === "contract" && !isTest)
      .flatMap(({ file }) =>
        importsOf(file)
          .filter(
            (imported) => !imported.specifier.startsWith(".") && !imported.specifier.startsWith("@bufbuild/protobuf"),
          )
          .map((imported) => `${rel(file)} → ${imported.specifier}`),
      );
    expect(wrong).toEqual([]);
  });

  test("the language-server layer (lsp-runner src/lsp/) knows nothing of gRPC, MCP, NATS or the engine", () => {
    const lspDir = join(ROOT, "services/lsp-runner/src/lsp/");
    const forbidden = join(ROOT, "services/lsp-runner/src/");
    const wrong = files
      .filter(({ file, test: isTest }) => file.startsWith(lspDir) && !isTest)
      .flatMap(({ file }) =>
        importsOf(file).flatMap((imported) => {
          const spec = imported.specifier;
          if (/^(@grpc\/|@lspmesh\/grpc|@modelcontextprotocol\/|@nats-io\/|grpc-health-check)/.test(spec))
            return [`${rel(file)} → ${spec}`];
          if (!spec.startsWith(".")) return [];
          const target = relative(forbidden, resolve(dirname(file), spec));
          return /^(grpc|engine|events)\//.test(target) ? [`${rel(file)} → ${spec}`] : [];
        }),
      );
    expect(wrong).toEqual([]);
  });
});

/** Every cycle a depth-first walk meets, each as "a → b → a". */
function findCycles(edges: ReadonlyMap<string, readonly string[]>, show: (node: string) => string): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "visiting");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "visiting")
        cycles.push([...stack.slice(stack.indexOf(next)), next].map(show).join(" → "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("import graph", () => {
  test("has no cycles (type-only imports included)", () => {
    const graph = new Map<string, string[]>();
    for (const { file } of files) {
      graph.set(
        file,
        importsOf(file)
          .filter((imported) => imported.specifier.startsWith("."))
          .map((imported) => resolveRelative(file, imported.specifier))
          .filter((target): target is string => target !== undefined),
      );
    }
    const cycles = findCycles(graph, rel);
    expect(cycles).toEqual([]);
  });

  test("the package graph is acyclic", () => {
    const edges = new Map(
      workspaces.map((workspace) => [
        workspace.name,
        Object.keys({ ...workspace.manifest.dependencies, ...workspace.manifest.devDependencies }).filter((name) =>
          byName.has(name),
        ),
      ]),
    );
    const cycles = findCycles(edges, (name) => name);
    expect(cycles).toEqual([]);
  });

  test("sees the whole repository", () => {
    // A guard against a walk that silently finds nothing.
    expect(workspaces.map((workspace) => workspace.dir)).toEqual(
      expect.arrayContaining(["proto", "packages/events", "services/gateway", "services/lsp-runner", "apps/cli"]),
    );
    expect(files.length).toBeGreaterThan(200);
  });
});
