import { expect, test } from "vitest";
import { camelCaseMatch, MATCH, matchName, matchWord } from "./symbolMatch.js";

const classOf = (name: string, query: string) => matchName(name, name.toLowerCase(), query, query.toLowerCase());

test.each([
  ["toSSG", "toSSG", MATCH.exact],
  ["ToSSG", "tossg", MATCH.exactIgnoringCase],
  ["composeA", "compose", MATCH.prefix],
  ["Composer", "compose", MATCH.prefixIgnoringCase],
  ["getServerProps", "gSP", MATCH.camelCase],
  ["getServerProps", "gsp", MATCH.camelCase],
  ["HonoBase", "HB", MATCH.camelCase],
  ["X_HONO_DISABLE_SSG", "xhds", MATCH.camelCase],
  ["isSSGContext", "SSGC", MATCH.substring],
  ["generateStaticSite", "gnrt", MATCH.fuzzy],
  ["compose", "toSSG", -1],
])("%s for query %s is class %i", (name, query, expected) => {
  expect(classOf(name, query)).toBe(expected);
});

test("camel-case matching continues inside a word or jumps to the next one", () => {
  expect(camelCaseMatch("fetchRoutesContent", "ferc")).toBe(true);
  expect(camelCaseMatch("fetchRoutesContent", "frcon")).toBe(true);
  expect(camelCaseMatch("fetchRoutesContent", "rc")).toBe(false);
});

test("text matches only where a word starts", () => {
  expect(matchWord("parseConfig", "parseconfig", "parse", "parse")).toBe(MATCH.prefix);
  expect(matchWord("parseConfig", "parseconfig", "Config", "config")).toBe(-1);
});
