// How a symbol name matches a query, best first: exact, prefix, camel-case (the query's letters
// start the name's words: "gSP" or "gsp" for getServerProps), substring, fuzzy (the query's
// letters in order). Case-sensitive before case-insensitive for exact and prefix.
export const MATCH = {
  exact: 0,
  exactIgnoringCase: 1,
  prefix: 2,
  prefixIgnoringCase: 3,
  camelCase: 4,
  substring: 5,
  fuzzy: 6,
} as const;

/** Names longer than this are not matched by camel case (minified or generated code). */
const MAX_CAMEL_CASE_NAME = 128;

export type MatchClass = (typeof MATCH)[keyof typeof MATCH];

/** The match class of `name` (lower: its lower case) for a query, or -1 when it does not match. */
export function matchName(name: string, lower: string, query: string, lowerQuery: string): MatchClass | -1 {
  if (!isSubsequence(lowerQuery, lower)) return -1;
  if (name === query) return MATCH.exact;
  if (lower === lowerQuery) return MATCH.exactIgnoringCase;
  if (name.startsWith(query)) return MATCH.prefix;
  if (lower.startsWith(lowerQuery)) return MATCH.prefixIgnoringCase;
  if (camelCaseMatch(name, lowerQuery)) return MATCH.camelCase;
  if (lower.includes(lowerQuery)) return MATCH.substring;
  return MATCH.fuzzy;
}

/** Text matches (no declarations): only where a word starts, the whole word or its beginning. */
export function matchWord(name: string, lower: string, query: string, lowerQuery: string): MatchClass | -1 {
  if (name === query) return MATCH.exact;
  if (lower === lowerQuery) return MATCH.exactIgnoringCase;
  if (name.startsWith(query)) return MATCH.prefix;
  if (lower.startsWith(lowerQuery)) return MATCH.prefixIgnoringCase;
  return -1;
}

export function isSubsequence(needle: string, haystack: string): boolean {
  if (needle.length > haystack.length) return false;
  let at = -1;
  for (let i = 0; i < needle.length; i++) {
    at = haystack.indexOf(needle[i]!, at + 1);
    if (at < 0) return false;
  }
  return true;
}

enum CharClass {
  Lower,
  Upper,
  Digit,
  Separator,
}

function classOf(code: number): CharClass {
  if (code >= 97 && code <= 122) return CharClass.Lower;
  if (code >= 65 && code <= 90) return CharClass.Upper;
  if (code >= 48 && code <= 57) return CharClass.Digit;
  if (code === 95 || code === 36 || code === 45 || code === 46) return CharClass.Separator;
  return CharClass.Lower; // other letters: part of the word they are in
}

/** Where the words of an identifier start: its first character, a capital after a lower-case letter or digit, a digit run, and after `_`, `$`, `-` or `.`. */
function wordStarts(name: string): number[] {
  const starts: number[] = [];
  let previous: CharClass | undefined;
  for (let i = 0; i < name.length; i++) {
    const current = classOf(name.charCodeAt(i));
    if (current !== CharClass.Separator) {
      if (
        previous === undefined ||
        previous === CharClass.Separator ||
        (current === CharClass.Upper && previous !== CharClass.Upper) ||
        (current === CharClass.Digit) !== (previous === CharClass.Digit)
      )
        starts.push(i);
    }
    previous = current;
  }
  return starts;
}

/**
 * The query's characters, in order, each either starting a word of the name or following the
 * previous matched character within its word; the first must start the first word.
 */
export function camelCaseMatch(name: string, lowerQuery: string): boolean {
  if (name.length > MAX_CAMEL_CASE_NAME) return false; // bounds the backtracking
  const starts = wordStarts(name);
  const lower = name.toLowerCase();
  const isStart = new Set(starts);
  const search = (q: number, position: number): boolean => {
    if (q === lowerQuery.length) return true;
    // Continue in the current word...
    if (position < lower.length && !isStart.has(position) && lower[position] === lowerQuery[q]) {
      if (search(q + 1, position + 1)) return true;
    }
    // ...or jump to a later word's start.
    for (const start of starts) {
      if (start < position) continue;
      if (lower[start] === lowerQuery[q] && search(q + 1, start + 1)) return true;
    }
    return false;
  };
  return lower[0] === lowerQuery[0] && search(1, 1);
}
