// LSP glob patterns (LSP 3.17 "Pattern"): `*` and `?` within one path segment, `**` across
// segments, `{a,b}` alternatives, `[0-9]` / `[!0-9]` character ranges. Compiled once to a RegExp.

/** A RegExp matching whole POSIX paths against the glob. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  let inGroup = false;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          source += "(?:.*/)?"; // "**/": zero or more whole segments
        } else {
          source += ".*";
        }
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "{" && !inGroup) {
      inGroup = true;
      source += "(?:";
    } else if (char === "}" && inGroup) {
      inGroup = false;
      source += ")";
    } else if (char === "," && inGroup) {
      source += "|";
    } else if (char === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) {
        source += "\\[";
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negated = body.startsWith("!");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else {
      source += char.replace(/[.+^${}()|\\\]]/g, "\\$&");
    }
  }
  if (inGroup) source += ")";
  return new RegExp(`^${source}$`);
}
