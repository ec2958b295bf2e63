// Path globs from callers (search_symbols' `path`), matched in time linear in the path. A glob is
// translated here into an RE2 expression (no lookarounds, no backreferences) and run by re2js, a
// pure-JS port of RE2 (automata, no backtracking): picomatch compiled globs to backtracking
// RegExps, and `src/*a*a*a*a*a*a*a*a*a*c` against a 40-character file name held the event loop
// for ~20 s. Semantics are picomatch's with `dot: true` for the syntax kept:
// - `*` any run of characters but `/`; `?` one character but `/`;
// - `**` as a whole path segment: zero or more segments (`src/**/*.ts`, `**/*.ts`, `src/**`);
//   elsewhere (`a**b`) it is a `*`;
// - `[abc]`, `[a-z]`, `[!a]` / `[^a]`, `[[:alpha:]]` classes, which never match `/` (and, as in
//   picomatch, `[id]` also matches the text `[id]`);
// - `{a,b}` alternatives (nested; a brace without a comma, or unclosed, is literal);
// - `\x` the character x; a leading `!` negates the glob; a leading `./` is ignored;
// - everything else literal, dotfiles included.
// Not supported (literal characters here): extglobs `@(a|b)`, `!(a)`, regex groups `(a|b)`, and
// numeric ranges `{1..3}`.
import { RE2JS } from "re2js";

/** Longest glob accepted, in UTF-16 code units (bounds the compiled program and its DFA). */
export const MAX_PATH_GLOB_LENGTH = 256;
/** `{…}` alternatives in one glob, summed over every brace group (nested ones included). */
export const MAX_PATH_GLOB_ALTERNATIVES = 64;
// `?`, `[…]` classes and `{…}` groups in one glob, at most. Linear time is not enough on its own:
// after a `*`, each such choice can double the automaton's states (`*a????`: which of the last k
// characters were `a`), re2js's DFA cache then thrashes, and the cost per path character grows
// from ~20 ns for src/**/*.ts to ~100 ns at 8 choices, ~800 ns at 16 and ~5 000 ns at 31
// (measured on 200-character paths). 8 keeps the costliest glob within ~5× an everyday one, which
// uses 0-3.
export const MAX_PATH_GLOB_CHOICES = 8;

/** A glob that cannot be compiled; `message` says why and how to fix it, after the glob itself. */
export class PathGlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathGlobError";
  }
}

/** Compiles `glob` into a matcher of whole workspace-relative paths. Throws PathGlobError. */
export function compilePathGlob(glob: string): (path: string) => boolean {
  const { source, negated } = translatePathGlob(glob);
  let re: RE2JS;
  try {
    // DOTALL: `**` (`.*`) crosses every character, a newline in a file name included.
    re = RE2JS.compile(source, RE2JS.DOTALL);
  } catch {
    throw new PathGlobError("is not a valid glob; e.g. src/**/*.ts");
  }
  // testExact: whole-input match without capture groups, RE2's DFA path (NFA when its cache fills).
  return negated ? (path) => !re.testExact(path) : (path) => re.testExact(path);
}

/** The RE2 expression (matched against the whole path) and whether a leading `!` negates it. */
export function translatePathGlob(glob: string): { source: string; negated: boolean } {
  if (glob.length > MAX_PATH_GLOB_LENGTH) {
    throw new PathGlobError(`is longer than ${MAX_PATH_GLOB_LENGTH} characters; use a shorter glob, e.g. src/**/*.ts`);
  }
  let body = glob;
  const negated = body.startsWith("!");
  if (negated) body = body.slice(1);
  while (body.startsWith("./")) body = body.slice(2);
  if (body === "") throw new PathGlobError("is empty; give a glob, e.g. src/**/*.ts");
  const tokens = resolveBraces(tokenize(Array.from(body)));
  const choices = tokens.filter((token) => token.t === "any" || token.t === "class" || token.t === "open").length;
  if (choices > MAX_PATH_GLOB_CHOICES) {
    throw new PathGlobError(
      `has ${choices} ?, […] and {…} choices, at most ${MAX_PATH_GLOB_CHOICES} are allowed; use * for some, e.g. src/**/*.ts`,
    );
  }
  const nodes = parse(tokens);
  return { source: compileSeq(nodes, true, "end"), negated };
}

type Token =
  | { t: "lit"; c: string }
  | { t: "slash" }
  | { t: "star" }
  | { t: "globstar" }
  | { t: "any" }
  | { t: "class"; re: string }
  | { t: "open" }
  | { t: "comma" }
  | { t: "close" };

const SINGLE = new Map<string, Token>([
  ["/", { t: "slash" }],
  ["?", { t: "any" }],
  ["{", { t: "open" }],
  [",", { t: "comma" }],
  ["}", { t: "close" }],
]);

type Node = Exclude<Token, { t: "open" | "comma" | "close" }> | { t: "alt"; alts: Node[][] };

/** Code points → tokens; braces stay raw until resolveBraces decides which are alternations. */
function tokenize(cps: string[]): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < cps.length) {
    const c = cps[i]!;
    if (c === "\\") {
      // A trailing backslash is itself; `\/` is still a separator.
      const next = cps[i + 1] ?? "\\";
      tokens.push(next === "/" ? { t: "slash" } : { t: "lit", c: next });
      i += 2;
    } else if (c === "*") {
      let end = i;
      while (cps[end] === "*") end++;
      // Exactly two may be a globstar; three or more are one `*`, as in picomatch.
      tokens.push(end - i === 2 ? { t: "globstar" } : { t: "star" });
      i = end;
    } else if (c === "[") {
      const cls = parseClass(cps, i);
      if (cls) {
        tokens.push({ t: "class", re: cls.re });
        i = cls.end;
      } else {
        tokens.push({ t: "lit", c });
        i++;
      }
    } else {
      tokens.push(SINGLE.get(c) ?? { t: "lit", c });
      i++;
    }
  }
  return tokens;
}

/**
 * Pairs braces with one stack pass (linear: no re-parsing on an unclosed brace). A pair with a
 * comma directly inside is an alternation; every other brace, and a comma outside one, is literal.
 */
function resolveBraces(tokens: Token[]): Token[] {
  const stack: number[] = [];
  const owner = new Map<number, number>(); // comma index → index of the open brace it sits in
  const closeOf = new Map<number, number>();
  const commas = new Map<number, number>();
  tokens.forEach((token, index) => {
    if (token.t === "open") stack.push(index);
    else if (token.t === "comma" && stack.length > 0) {
      const open = stack.at(-1)!;
      owner.set(index, open);
      commas.set(open, (commas.get(open) ?? 0) + 1);
    } else if (token.t === "close" && stack.length > 0) closeOf.set(stack.pop()!, index);
  });
  const live = new Set<number>();
  let alternatives = 0;
  for (const [open, close] of closeOf) {
    const count = commas.get(open) ?? 0;
    if (count === 0) continue;
    live.add(open).add(close);
    alternatives += count + 1;
  }
  if (alternatives > MAX_PATH_GLOB_ALTERNATIVES) {
    throw new PathGlobError(
      `has ${alternatives} {…} alternatives, at most ${MAX_PATH_GLOB_ALTERNATIVES} are allowed; use fewer, or a broader glob such as src/**/*.ts`,
    );
  }
  for (const [comma, open] of owner) if (live.has(open)) live.add(comma);
  return tokens.map(
    (token, index): Token =>
      (token.t === "open" || token.t === "comma" || token.t === "close") && !live.has(index)
        ? { t: "lit", c: BRACE_CHARS[token.t] }
        : token,
  );
}

const BRACE_CHARS = { open: "{", comma: ",", close: "}" } as const;

/** Tokens (braces resolved) → a tree with one `alt` node per alternation. */
function parse(tokens: Token[]): Node[] {
  let i = 0;
  const seq = (): Node[] => {
    const nodes: Node[] = [];
    while (i < tokens.length) {
      const token = tokens[i]!;
      if (token.t === "comma" || token.t === "close") return nodes;
      i++;
      if (token.t !== "open") {
        nodes.push(token);
        continue;
      }
      const alts: Node[][] = [seq()];
      // resolveBraces paired every live brace, so this loop ends on its close.
      while (tokens[i]?.t === "comma") {
        i++;
        alts.push(seq());
      }
      i++;
      nodes.push({ t: "alt", alts });
    }
    return nodes;
  };
  return seq();
}

type Next = "end" | "slash" | "other";

/**
 * RE2 source for a sequence. `startsSegment`: the sequence begins a path segment (start of the
 * glob or after `/`); `next`: what follows it. Both decide whether `**` is a whole segment.
 */
function compileSeq(nodes: Node[], startsSegment: boolean, next: Next): string {
  const out: string[] = [];
  const wholeSegment = (i: number): boolean =>
    nodes[i]?.t === "globstar" &&
    (i === 0 ? startsSegment : nodes[i - 1]!.t === "slash") &&
    (i + 1 < nodes.length ? nodes[i + 1]!.t === "slash" : next !== "other");
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const after = nodes[i + 1];
    const segmentStart = i === 0 ? startsSegment : nodes[i - 1]!.t === "slash";
    if (wholeSegment(i) && after?.t === "slash" && wholeSegment(i + 2)) {
      // `**/**` is one `**` (so `src/**/**` still matches `src`): skip this one and its slash.
      i++;
      continue;
    }
    switch (node.t) {
      case "lit":
        out.push(literal(node.c));
        break;
      case "slash":
        out.push("/");
        break;
      case "star":
        out.push("[^/]*");
        break;
      case "any":
        out.push("[^/]");
        break;
      case "class":
        out.push(node.re);
        break;
      case "globstar": {
        if (!wholeSegment(i)) out.push("[^/]*");
        else if (after?.t === "slash") {
          // `**/`: zero or more whole segments, each with its slash.
          out.push("(?:[^/]*/)*");
          i++;
        } else if (out.at(-1) === "/") {
          // Trailing `/**`: the folder itself or anything below it (`src/**` matches `src`).
          out.pop();
          out.push("(?:/.*)?");
        } else out.push(".*");
        break;
      }
      case "alt": {
        const altNext: Next = after ? (after.t === "slash" ? "slash" : "other") : next;
        out.push(`(?:${node.alts.map((alt) => compileSeq(alt, segmentStart, altNext)).join("|")})`);
        break;
      }
    }
  }
  return out.join("");
}

/** One code point as RE2 source: letters and digits as is, anything else as `\x{…}`. */
function literal(c: string): string {
  return /^[A-Za-z0-9]$/.test(c) ? c : hex(c.codePointAt(0)!);
}

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`;
}

const SLASH = 0x2f;
type Range = readonly [number, number];

/** POSIX classes (ASCII), as picomatch knows them: `[[:alpha:]]`. */
const POSIX = new Map<string, Range[]>(
  Object.entries({
    alnum: [
      [0x30, 0x39],
      [0x41, 0x5a],
      [0x61, 0x7a],
    ],
    alpha: [
      [0x41, 0x5a],
      [0x61, 0x7a],
    ],
    ascii: [[0x00, 0x7f]],
    blank: [
      [0x09, 0x09],
      [0x20, 0x20],
    ],
    cntrl: [
      [0x00, 0x1f],
      [0x7f, 0x7f],
    ],
    digit: [[0x30, 0x39]],
    graph: [[0x21, 0x7e]],
    lower: [[0x61, 0x7a]],
    print: [[0x20, 0x7e]],
    punct: [
      [0x21, 0x2f],
      [0x3a, 0x40],
      [0x5b, 0x60],
      [0x7b, 0x7e],
    ],
    space: [
      [0x09, 0x0d],
      [0x20, 0x20],
    ],
    upper: [[0x41, 0x5a]],
    word: [
      [0x30, 0x39],
      [0x41, 0x5a],
      [0x5f, 0x5f],
      [0x61, 0x7a],
    ],
    xdigit: [
      [0x30, 0x39],
      [0x41, 0x46],
      [0x61, 0x66],
    ],
  }),
);

/**
 * `[…]` starting at `start`: its RE2 source (a class never matching `/`, or for a class not
 * negated, that or the bracket text itself) and the index after `]`, or undefined when no `]`
 * closes it (the `[` is then literal). `]` right after `[` or `[!` is a member.
 */
function parseClass(cps: string[], start: number): { re: string; end: number } | undefined {
  let i = start + 1;
  const negate = cps[i] === "!" || cps[i] === "^";
  if (negate) i++;
  const ranges: Range[] = [];
  const first = i;
  // One member character (`\x` is x); the callers check that one is there.
  const member = (): number => {
    if (cps[i] === "\\" && i + 1 < cps.length) i++;
    return cps[i++]!.codePointAt(0)!;
  };
  while (i < cps.length) {
    if (cps[i] === "]" && i > first) {
      const re = classSource(ranges, negate);
      // As in picomatch, `[id]` also matches its own text: Next.js routes (`app/[id]/page.tsx`).
      const text = cps
        .slice(start, i + 1)
        .map(literal)
        .join("");
      return { re: negate ? re : `(?:${re}|${text})`, end: i + 1 };
    }
    if (cps[i] === "[" && cps[i + 1] === ":") {
      const close = cps.indexOf(":", i + 2);
      const name = close > 0 && cps[close + 1] === "]" ? cps.slice(i + 2, close).join("") : undefined;
      const posix = name === undefined ? undefined : POSIX.get(name);
      if (posix) {
        ranges.push(...posix);
        i = close + 2;
        continue;
      }
    }
    const lo = member();
    if (cps[i] === "-" && i + 1 < cps.length && cps[i + 1] !== "]") {
      i++;
      const hi = member();
      if (hi < lo) {
        const range = `${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)}`;
        throw new PathGlobError(`has the reversed range [${range}]; write ranges low to high, e.g. [a-z]`);
      }
      ranges.push([lo, hi]);
    } else ranges.push([lo, lo]);
  }
  return undefined;
}

/** RE2 class source; `/` is cut out of every range (negated classes list it as excluded). */
function classSource(ranges: Range[], negate: boolean): string {
  const parts: string[] = [];
  for (const [lo, hi] of ranges) {
    for (const [a, b] of [
      [lo, Math.min(hi, SLASH - 1)],
      [Math.max(lo, SLASH + 1), hi],
    ] as const) {
      if (a > b) continue;
      parts.push(a === b ? hex(a) : `${hex(a)}-${hex(b)}`);
    }
  }
  if (negate) return `[^/${parts.join("")}]`;
  // Only `/` listed: a class that matches nothing (a segment never holds a `/`).
  return parts.length > 0 ? `[${parts.join("")}]` : "[^\\x{0}-\\x{10ffff}]";
}
