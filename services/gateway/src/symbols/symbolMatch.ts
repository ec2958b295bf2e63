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

/**
 * The classes that need no camel-case test (exact, prefix), or undefined for "camel-case,
 * substring or fuzzy", settled later by matchName only for matches that can make the limit.
 * The caller has checked that the name holds the query's letters in order.
 */
export function quickMatch(name: string, lower: string, query: string, lowerQuery: string): MatchClass | undefined {
  if (name === query) return MATCH.exact;
  if (lower === lowerQuery) return MATCH.exactIgnoringCase;
  if (name.startsWith(query)) return MATCH.prefix;
  if (lower.startsWith(lowerQuery)) return MATCH.prefixIgnoringCase;
  return undefined;
}

/** The class of a name known to hold the query's letters in order and not to be an exact or prefix match. */
export function slowMatch(name: string, lower: string, lowerQuery: string): MatchClass {
  if (camelCaseMatch(name, lowerQuery)) return MATCH.camelCase;
  return lower.includes(lowerQuery) ? MATCH.substring : MATCH.fuzzy;
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

/** 0 lower-case (and other letters), 1 capital, 2 digit, 3 separator (`_ $ - .`). */
function classOf(code: number): number {
  if (code >= 97 && code <= 122) return 0;
  if (code >= 65 && code <= 90) return 1;
  if (code >= 48 && code <= 57) return 2;
  if (code === 95 || code === 36 || code === 45 || code === 46) return 3;
  return 0;
}

/** A word of the identifier starts here: its first character, a capital after a non-capital, where a digit run starts or ends, after a separator. */
function startsWord(name: string, at: number): boolean {
  const current = classOf(name.charCodeAt(at));
  if (current === 3) return false;
  if (at === 0) return true;
  const previous = classOf(name.charCodeAt(at - 1));
  return previous === 3 || (current === 1 && previous !== 1) || (current === 2) !== (previous === 2);
}

/**
 * The query's characters, in order, each either starting a word of the name or following the
 * previous matched character within its word; the first must start the first word.
 */
export function camelCaseMatch(name: string, lowerQuery: string): boolean {
  if (name.length > MAX_CAMEL_CASE_NAME) return false; // bounds the backtracking
  if ((name.charCodeAt(0) | 32) !== (lowerQuery.charCodeAt(0) | 32)) return false;
  const lower = name.toLowerCase();
  const search = (q: number, position: number): boolean => {
    if (q === lowerQuery.length) return true;
    const wanted = lowerQuery.charCodeAt(q);
    // Continue in the current word...
    if (position < lower.length && !startsWord(name, position) && lower.charCodeAt(position) === wanted) {
      if (search(q + 1, position + 1)) return true;
    }
    // ...or jump to a later word's start.
    for (let start = position; start < lower.length; start++) {
      if (lower.charCodeAt(start) === wanted && startsWord(name, start) && search(q + 1, start + 1)) return true;
    }
    return false;
  };
  return lower.charCodeAt(0) === lowerQuery.charCodeAt(0) && startsWord(name, 0) && search(1, 1);
}
