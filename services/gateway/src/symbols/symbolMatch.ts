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
  let at = 0;
  for (let i = 0; i < haystack.length && at < needle.length; i++) {
    if (haystack.charCodeAt(i) === needle.charCodeAt(at)) at++;
  }
  return at === needle.length;
}

/** Where the words of an identifier start: its first character, a capital after a lower-case letter or digit, and after `_`, `$`, `-` or a digit run. */
function wordStarts(name: string): number[] {
  const starts: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const char = name[i]!;
    const previous = name[i - 1];
    if (/[_$\-.]/.test(char)) continue;
    if (
      previous === undefined ||
      /[_$\-.]/.test(previous) ||
      (/[A-Z]/.test(char) && /[a-z0-9]/.test(previous)) ||
      /[0-9]/.test(char) !== /[0-9]/.test(previous)
    )
      starts.push(i);
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
