// The system packages some suites need beyond `npm ci` (language servers, the sandbox, podman),
// named once. A suite asks `needs("bubblewrap")` and skips when it is missing: outside CI with one
// line naming the package and the command that installs it; with CI=true (as `.ci/run` sets) a
// missing package fails the run instead, so CI never passes by skipping.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export interface SystemPackage {
  /** Debian/Ubuntu package name(s). */
  readonly packages: string;
  /** The command that installs it on Debian/Ubuntu. */
  readonly install: string;
  /** True when it is installed and works here (on PATH is not enough: a rustup proxy fails). */
  readonly works: () => boolean;
  /**
   * False where no Debian package exists, so CI (which installs only Debian packages) cannot have
   * it: its suites then skip with the line even with CI=true.
   */
  readonly inCi: boolean;
}

const runs = (command: string, ...args: string[]) =>
  spawnSync(command, args, { stdio: "ignore", timeout: 15_000 }).status === 0;

export const SYSTEM_PACKAGES = {
  bubblewrap: {
    packages: "bubblewrap",
    install: "sudo apt-get install bubblewrap",
    // Installed and able to make namespaces here (a container may forbid them).
    works: () => runs("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"),
    inCi: true,
  },
  clangd: {
    packages: "clangd",
    install: "sudo apt-get install clangd",
    works: () => runs("clangd", "--version"),
    inCi: true,
  },
  gopls: {
    packages: "gopls golang-go",
    install: "sudo apt-get install gopls golang-go",
    works: () => runs("gopls", "version") && runs("go", "version"),
    inCi: true,
  },
  "rust-analyzer": {
    packages: "rust-analyzer (not packaged by Debian 12)",
    install: "rustup component add rust-analyzer",
    works: () => runs("rust-analyzer", "--version") && runs("cargo", "--version"),
    inCi: false,
  },
  promtool: {
    packages: "prometheus",
    install: "sudo apt-get install --no-install-recommends prometheus",
    works: () => runs("promtool", "--version"),
    inCi: true,
  },
  // The Helm chart's renderer (test/deploy/helm-render): Go and the Debian sources it builds from.
  "helm-render": {
    packages:
      "golang-go golang-github-masterminds-sprig-dev golang-github-ghodss-yaml-dev golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev golang-github-gobwas-glob-dev",
    install: "sudo bash scripts/install-system-packages.sh",
    works: () =>
      runs("go", "version") &&
      [
        "github.com/Masterminds/sprig",
        "github.com/ghodss/yaml",
        "gopkg.in/yaml.v2",
        "gopkg.in/yaml.v3",
        "github.com/gobwas/glob",
      ]
        .map((path) => `/usr/share/gocode/src/${path}`)
        .every((dir) => existsSync(dir)),
    inCi: true,
  },
  podman: {
    packages: "podman buildah runc debootstrap catatonit",
    install: "bash test/deploy/scripts/podman-setup.sh",
    works: () => runs("podman", "--version"),
    inCi: true,
  },
} as const satisfies Record<string, SystemPackage>;

export type SystemPackageName = keyof typeof SYSTEM_PACKAGES;

const known = new Map<SystemPackageName, boolean>();

/** True in CI (`CI=true`, as `.ci/run` and most CI services set it). */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === "true" || env.CI === "1";
}

/**
 * Whether the suite can run: true when `name` works here. When it does not, prints one line naming
 * the package and its install command and returns false (the caller skips), or with CI=true throws
 * (the run fails, naming the package).
 */
export function needs(name: SystemPackageName, suite = "this suite"): boolean {
  const wanted = SYSTEM_PACKAGES[name];
  let works = known.get(name);
  if (works === undefined) {
    works = wanted.works();
    known.set(name, works);
  }
  if (works) return true;
  const line = `${suite} needs ${name} (Debian/Ubuntu package: ${wanted.packages}), which is missing or does not run here; install it with: ${wanted.install}`;
  if (inCi() && wanted.inCi) throw new Error(`CI=true: ${line}`);
  process.stderr.write(`skipped: ${line}\n`);
  return false;
}
