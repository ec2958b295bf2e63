// Whether a Go file is built on this machine: gopls type-checks only the files the go tool would
// build here, so a file left out by its name (`_windows.go`) or its `//go:build` line (`ignore`,
// another system) gets nothing back (hover null, no definition, no references counted) without
// saying why. Evaluated as go/build does, for this machine's GOOS and GOARCH.

const KNOWN_OS = new Set(
  "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos".split(
    " ",
  ),
);
const KNOWN_ARCH = new Set(
  "386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm".split(
    " ",
  ),
);
const UNIX_OS = new Set(
  "aix android darwin dragonfly freebsd hurd illumos ios linux netbsd openbsd solaris".split(" "),
);

/** The machine a build is for: GOOS and GOARCH (this process's by default). */
export interface GoTarget {
  os: string;
  arch: string;
}

const ARCH_OF_NODE: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm", s390x: "s390x" };

export function thisGoTarget(): GoTarget {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return { os, arch: ARCH_OF_NODE[process.arch] ?? process.arch };
}

/**
 * Why `file` (its base name) with `text` is not built for `target`, or undefined when it is (or
 * when its constraint cannot be read). Tags other than the system's, `unix`, `gc`, `cgo` and Go
 * release tags (`go1.21`) are unset, as in a plain `go build`.
 */
export function goBuildExclusion(file: string, text: string, target: GoTarget = thisGoTarget()): string | undefined {
  const byName = nameConstraint(file, target);
  if (byName) return byName;
  const line = buildLine(text);
  if (line === undefined) return undefined;
  const satisfied = evaluate(line, (tag) => tagSet(tag, target));
  return satisfied === false
    ? `its build constraint (//go:build ${line}) leaves it out on ${target.os}/${target.arch}`
    : undefined;
}

function tagSet(tag: string, target: GoTarget): boolean {
  if (tag === target.os || tag === target.arch) return true;
  if (tag === "unix") return UNIX_OS.has(target.os);
  if (tag === "gc" || tag === "cgo") return true;
  if (/^go1\.\d+$/.test(tag)) return true;
  return false;
}

/** `x_GOOS.go`, `x_GOARCH.go`, `x_GOOS_GOARCH.go` (`_test` before the extension aside). */
function nameConstraint(file: string, target: GoTarget): string | undefined {
  const base = file
    .split("/")
    .at(-1)!
    .replace(/\.go$/, "")
    .replace(/_test$/, "");
  const parts = base.split("_");
  if (parts.length < 2) return undefined;
  const last = parts.at(-1)!;
  const before = parts.length > 2 ? parts.at(-2)! : undefined;
  const os = before && KNOWN_OS.has(before) && KNOWN_ARCH.has(last) ? before : KNOWN_OS.has(last) ? last : undefined;
  const arch = KNOWN_ARCH.has(last) ? last : undefined;
  const wrongOs = os !== undefined && os !== target.os && !(os === "linux" && target.os === "android");
  if (wrongOs || (arch !== undefined && arch !== target.arch))
    return `its name (_${[os, arch].filter(Boolean).join("_")}) leaves it out on ${target.os}/${target.arch}`;
  return undefined;
}

/** The `//go:build` expression above the package clause, or undefined. */
function buildLine(text: string): string | undefined {
  for (const line of text.split("\n", 200)) {
    const trimmed = line.trim();
    const build = /^\/\/go:build\s+(.+)$/.exec(trimmed);
    if (build) return build[1]!.trim();
    if (/^package\s/.test(trimmed)) return undefined;
  }
  return undefined;
}

/** A `//go:build` expression's value; undefined when it does not parse. */
export function evaluate(expression: string, isSet: (tag: string) => boolean): boolean | undefined {
  const tokens = expression.match(/[A-Za-z0-9_.]+|&&|\|\||!|\(|\)|\S/g) ?? [];
  let at = 0;
  const or = (): boolean | undefined => {
    let value = and();
    while (value !== undefined && tokens[at] === "||") {
      at++;
      const right = and();
      value = right === undefined ? undefined : value || right;
    }
    return value;
  };
  const and = (): boolean | undefined => {
    let value = not();
    while (value !== undefined && tokens[at] === "&&") {
      at++;
      const right = not();
      value = right === undefined ? undefined : value && right;
    }
    return value;
  };
  const not = (): boolean | undefined => {
    const token = tokens[at++];
    if (token === "!") {
      const value = not();
      return value === undefined ? undefined : !value;
    }
    if (token === "(") {
      const value = or();
      return tokens[at++] === ")" ? value : undefined;
    }
    return token !== undefined && /^[A-Za-z0-9_.]+$/.test(token) ? isSet(token) : undefined;
  };
  const value = or();
  return at === tokens.length ? value : undefined;
}
