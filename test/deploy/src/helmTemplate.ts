// `helm template` without helm (it cannot be installed on these machines): test/deploy/helm-render,
// a small Go program on Go's text/template and the Debian packages of sprig and its YAML library,
// renders a chart directory the way Helm 3 does (values coalesced, the same functions and built-in
// objects, documents sorted by kind under `# Source:` lines). It is built once per source hash
// into a cache folder (a few seconds); the coalesced values are checked against the chart's
// values.schema.json here, as helm checks them before rendering.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse, stringify } from "yaml";
import type { KubeObject } from "./kustomize.js";
import { repoPath } from "./repo.js";

const SOURCE_DIR = repoPath("test/deploy/helm-render");
/** Where Debian's golang-*-dev packages put their sources (GOPATH layout). */
const DEBIAN_GOPATH = "/usr/share/gocode";
/** Imports with a major-version suffix, which GOPATH mode finds only through a link. */
const VERSIONED_IMPORTS = ["github.com/Masterminds/sprig", "github.com/Masterminds/semver"];
const PACKAGES =
  "golang-go golang-github-masterminds-sprig-dev golang-github-ghodss-yaml-dev golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev golang-github-gobwas-glob-dev (scripts/install-system-packages.sh)";

// biome-ignore lint/suspicious/noExplicitAny: chart values, checked by the chart's schema.
export type Values = Record<string, any>;

export interface HelmTemplateOptions {
  /** Release name (default "lspmesh"). */
  name?: string;
  namespace?: string;
  /** Values files, as `-f` (later ones win). */
  valuesFiles?: string[];
  /** Values objects, applied after the files in order, as more `-f` files. */
  values?: Values[];
  kubeVersion?: string;
  apiVersions?: string[];
  skipTests?: boolean;
  isUpgrade?: boolean;
}

export interface HelmDocument {
  /** The template it came from, e.g. lspmesh/templates/gateway.yaml. */
  source: string;
  object: KubeObject;
}

export interface HelmRender {
  /** The objects, in helm's order (hooks, tests among them, last). */
  objects: KubeObject[];
  documents: HelmDocument[];
  /** The values the templates saw (values.yaml and the given values, coalesced). */
  values: Values;
  /** `helm template`'s output. */
  text: string;
}

let built: string | undefined;

/** The renderer's binary, built on first use (cached by the hash of its sources). */
export function helmRenderer(): string {
  built ??= build();
  return built;
}

function build(): string {
  const files = readdirSync(SOURCE_DIR)
    .filter((file) => file.endsWith(".go") && !file.endsWith("_test.go"))
    .sort();
  const hash = createHash("sha256");
  for (const file of files) hash.update(file).update(readFileSync(join(SOURCE_DIR, file)));
  const key = hash.digest("hex").slice(0, 16);
  const cache = cacheRoot();
  const binary = join(cache, `helm-render-${key}`);
  if (existsSync(binary)) return binary;
  const gopath = join(cache, "gopath");
  for (const path of VERSIONED_IMPORTS) {
    const link = join(gopath, "src", path, "v3");
    if (!existsSync(link)) {
      mkdirSync(join(gopath, "src", path), { recursive: true });
      try {
        symlinkSync(join(DEBIAN_GOPATH, "src", path), link);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
  }
  const partial = `${binary}.${process.pid}.tmp`;
  const env = {
    ...process.env,
    GO111MODULE: "off",
    GOPATH: `${gopath}:${DEBIAN_GOPATH}`,
    GOCACHE: join(cache, "go-build"),
    GOFLAGS: "",
    GOPROXY: "off",
    CGO_ENABLED: "0",
  };
  try {
    execFileSync("go", ["build", "-o", partial, "."], { cwd: SOURCE_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const { stderr, code } = error as { stderr?: Buffer; code?: string };
    const why = code === "ENOENT" ? "go is not installed" : String(stderr ?? error);
    throw new Error(`building test/deploy/helm-render failed (${why}); it needs the Debian packages ${PACKAGES}`);
  }
  renameSync(partial, binary);
  return binary;
}

function cacheRoot(): string {
  for (const dir of [repoPath("node_modules/.cache/lspmesh-helm-render"), join(tmpdir(), "lspmesh-helm-render")]) {
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // Not writable: the next one.
    }
  }
  throw new Error("no writable cache folder for the Helm renderer");
}

/** `helm template <name> <chartDir> -n <namespace> -f …`, parsed; throws with helm's message on failure. */
export function helmTemplate(chartDir: string, options: HelmTemplateOptions = {}): HelmRender {
  const work = mkdtempSync(join(tmpdir(), "lspmesh-helm-template-"));
  try {
    const valuesFiles = [...(options.valuesFiles ?? [])];
    for (const [index, values] of (options.values ?? []).entries()) {
      const file = join(work, `values-${index}.yaml`);
      writeFileSync(file, stringify(values));
      valuesFiles.push(file);
    }
    const valuesOut = join(work, "values.json");
    const args = [
      ...["--name", options.name ?? "lspmesh", "--namespace", options.namespace ?? "lspmesh"],
      ...valuesFiles.flatMap((file) => ["-f", file]),
      ...(options.kubeVersion ? ["--kube-version", options.kubeVersion] : []),
      ...(options.apiVersions ?? []).flatMap((api) => ["--api-versions", api]),
      ...(options.skipTests ? ["--skip-tests"] : []),
      ...(options.isUpgrade ? ["--is-upgrade"] : []),
      ...["--values-out", valuesOut, chartDir],
    ];
    const run = spawnSync(helmRenderer(), args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const values: Values | undefined = existsSync(valuesOut) ? JSON.parse(readFileSync(valuesOut, "utf8")) : undefined;
    if (values) checkSchema(chartDir, values);
    if (run.status !== 0) throw new Error(run.stderr.trim() || `helm-render exited with ${run.status}`);
    // Documents start at a line "---" (a block scalar's lines are indented), each with its source.
    const documents = run.stdout.split(/^---$/m).flatMap((chunk) => {
      const object = parse(chunk) as KubeObject | null;
      const source = /^# Source: (\S+)$/m.exec(chunk)?.[1] ?? "";
      return object ? [{ source, object }] : [];
    });
    return { objects: documents.map((d) => d.object), documents, values: values ?? {}, text: run.stdout };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const validators = new Map<string, ReturnType<Ajv2020["compile"]>>();

/** helm's check of the coalesced values against values.schema.json (when the chart has one). */
function checkSchema(chartDir: string, values: Values): void {
  const file = join(chartDir, "values.schema.json");
  if (!existsSync(file)) return;
  let validate = validators.get(file);
  if (!validate) {
    validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(file, "utf8")));
    validators.set(file, validate);
  }
  if (validate(values)) return;
  const problems = (validate.errors ?? []).map((e) => `- ${e.instancePath || "(root)"}: ${e.message}`);
  throw new Error(
    `values don't meet the specifications of the schema(s) in the following chart(s):\n${problems.join("\n")}`,
  );
}
