// Whether a new name is a valid identifier, for the languages whose servers rename to anything
// they are given (tsserver renames `makeGreeting` to `1 bad` without complaint).

interface IdentifierRule {
  pattern: RegExp;
  reserved: ReadonlySet<string>;
}

const JAVASCRIPT: IdentifierRule = {
  pattern: /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u,
  reserved: new Set(
    (
      "break case catch class const continue debugger default delete do else enum export extends false finally " +
      "for function if import in instanceof new null return super switch this throw true try typeof var void " +
      "while with implements interface let package private protected public static yield await"
    ).split(" "),
  ),
};

const PYTHON: IdentifierRule = {
  pattern: /^[\p{XID_Start}_][\p{XID_Continue}]*$/u,
  reserved: new Set(
    (
      "False None True and as assert async await break class continue def del elif else except finally for " +
      "from global if import in is lambda nonlocal not or pass raise return try while with yield"
    ).split(" "),
  ),
};

/** Rules by language id; other languages are left to their server. */
const RULES: Readonly<Record<string, IdentifierRule>> = {
  typescript: JAVASCRIPT,
  typescriptreact: JAVASCRIPT,
  javascript: JAVASCRIPT,
  javascriptreact: JAVASCRIPT,
  python: PYTHON,
};

/**
 * Why `newName` cannot replace `currentName` in `language`, or undefined when it can. Only a
 * current name that is itself an identifier constrains the new one (string-literal keys, file
 * names and the like are the server's business).
 */
export function invalidRenameReason(language: string, currentName: string, newName: string): string | undefined {
  if (newName.trim() === "" || /[\p{Cc}\p{Zl}\p{Zp}]/u.test(newName)) {
    return "the new name is empty or contains control characters or line breaks";
  }
  const rule = RULES[language];
  if (!rule?.pattern.test(currentName)) return undefined;
  if (!rule.pattern.test(newName)) return `'${newName}' is not a valid ${language} identifier`;
  if (rule.reserved.has(newName)) return `'${newName}' is a reserved word in ${language}`;
  return undefined;
}

/** The characters of an identifier, in a RegExp class (letters, digits, marks, `_` and `$`). */
const WORD_CHARS = "\\p{L}\\p{N}\\p{Mn}\\p{Mc}\\p{Pc}$";
const WORD_CHAR = new RegExp(`[${WORD_CHARS}]`, "u");

/** The identifier around a column (1-based, code points) of a line; "" when none is there. */
export function wordAt(line: string, column: number): string {
  const chars = [...line];
  const isWord = (c: string | undefined) => c !== undefined && WORD_CHAR.test(c);
  let start = column - 1;
  let end = column - 1;
  while (start > 0 && isWord(chars[start - 1])) start--;
  while (isWord(chars[end])) end++;
  return chars.slice(start, end).join("");
}

/** Whether `text` has `name` as a whole word (not inside a longer identifier). */
export function hasWord(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![${WORD_CHARS}])${escaped}(?![${WORD_CHARS}])`, "u").test(text);
}
