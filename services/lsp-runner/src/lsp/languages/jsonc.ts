// JSON with comments and trailing commas, as tsconfig.json and pyrightconfig.json allow.

/** JSON with comments and trailing commas (tsconfig.json, pyrightconfig.json); undefined when invalid. */
export function parseJsonc(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(withoutComments(text).replace(/,(\s*[}\]])/g, "$1")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The text without // and /* *\/ comments, leaving strings ("src/**\/*") alone. */
function withoutComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      out += text.slice(start, i + 1);
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += char;
    }
  }
  return out;
}
