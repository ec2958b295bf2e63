// rustup installs every tool it knows (rust-analyzer among them) as a link to itself, a proxy that
// runs the tool of the active toolchain, whether or not that tool's component is installed. Such a
// command is found on PATH yet cannot serve: it exits at once with "unknown binary". `rustup which`
// says beforehand, the way the proxy itself would decide (same toolchain file, same environment).
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { basename } from "node:path";

/** How long a verdict is kept, ms: an operator's `rustup component add` is seen within this. */
const VERDICT_TTL_MS = 60_000;
/** How long `rustup which` may take, ms; past it the proxy is assumed able to run the tool. */
const WHICH_TIMEOUT_MS = 5_000;

const verdicts = new Map<string, { problem: string | undefined; at: number }>();

export interface ProxyCheck {
  /** The folder the tool would run in (a rust-toolchain.toml there chooses the toolchain). */
  cwd?: string;
  /** The tool's whole environment (RUSTUP_TOOLCHAIN, RUSTUP_HOME, HOME, PATH); default the runner's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Why the toolchain proxy at `executable` cannot run the tool it is named after ("unknown binary
 * 'rust-analyzer' in toolchain 'stable-x86_64-unknown-linux-gnu'"), or undefined when it can or
 * `executable` is no such proxy.
 */
export function proxiedToolProblem(executable: string, check: ProxyCheck = {}): string | undefined {
  const tool = basename(executable);
  let target: string;
  try {
    target = realpathSync(executable);
  } catch {
    return undefined;
  }
  if (!isRustup(basename(target)) || isRustup(tool)) return undefined;
  const key = `${target}\0${tool}\0${check.cwd ?? ""}\0${check.env?.RUSTUP_TOOLCHAIN ?? ""}`;
  const known = verdicts.get(key);
  if (known && Date.now() - known.at < VERDICT_TTL_MS) return known.problem;
  const problem = askRustup(target, tool, check);
  verdicts.set(key, { problem, at: Date.now() });
  return problem;
}

function isRustup(name: string): boolean {
  return /^rustup(-init)?(\.exe)?$/.test(name);
}

function askRustup(rustup: string, tool: string, check: ProxyCheck): string | undefined {
  try {
    execFileSync(rustup, ["which", tool], {
      cwd: check.cwd,
      env: { ...(check.env ?? process.env), RUST_BACKTRACE: "0" },
      stdio: ["ignore", "ignore", "pipe"],
      timeout: WHICH_TIMEOUT_MS,
    });
    return undefined;
  } catch (error) {
    const { status, stderr } = error as { status?: number | null; stderr?: Buffer };
    // Killed by the timeout, or not started: no verdict; the start itself will say.
    if (typeof status !== "number") return undefined;
    const said = (stderr?.toString("utf8") ?? "").split("\n").find((line) => line.trim() !== "") ?? "";
    return said.replace(/^error:\s*/i, "").trim() || `rustup which ${tool} exited with ${status}`;
  }
}
