// Rendezvous (highest-random-weight) hashing: every gateway replica ranks the same runners in the
// same order for a key, from nothing but the key and the runner ids. Adding a
// runner moves about 1/N of the keys to it; removing one moves only the keys it owned. Runners rank
// with the same functions to know who takes a session over when one drains (handoff).
import { createHash } from "node:crypto";

/** The routing key of a session: (tenant, workspace, language). */
export interface RouteKey {
  readonly tenant: string;
  readonly workspace: string;
  /** Language id (e.g. "typescript"); "" when the call is not about one language. */
  readonly language: string;
}

/** Weights remembered (a gateway ranks the same few keys on every call); forgotten all at once beyond this many. */
const REMEMBERED_WEIGHTS = 4096;
const weights = new Map<string, bigint>();

/** A 64-bit weight for (key, runner): the first 8 bytes of SHA-256, stable across processes and versions. */
export function hrwWeight(key: RouteKey, runnerId: string): bigint {
  const input = `${key.tenant}\u0000${key.workspace}\u0000${key.language}\u0000${runnerId}`;
  let weight = weights.get(input);
  if (weight === undefined) {
    weight = createHash("sha256").update(input).digest().readBigUInt64BE(0);
    if (weights.size >= REMEMBERED_WEIGHTS) weights.clear();
    weights.set(input, weight);
  }
  return weight;
}

/** The items ranked best first for `key`; ties (practically impossible) break by id. */
export function rankByHrw<T extends { readonly id: string }>(key: RouteKey, items: readonly T[]): T[] {
  // One runner (serve, a pool of one) ranks first whatever its weight.
  if (items.length < 2) return [...items];
  return items
    .map((item) => ({ item, weight: hrwWeight(key, item.id) }))
    .sort((a, b) => (a.weight === b.weight ? a.item.id.localeCompare(b.item.id) : a.weight > b.weight ? -1 : 1))
    .map(({ item }) => item);
}

/** Language wildcard of a runner that decides for itself (a static one): asked about every language. */
export const ANY_LANGUAGE = "*";

/** What ranking needs to know of a runner. */
export interface RankedRunner {
  readonly id: string;
  /** Language ids it serves; ["*"] = any. */
  readonly languages: readonly string[];
  /** Tenants it is routed (its claims); undefined = any. */
  readonly tenants?: readonly string[] | undefined;
}

/** The runner admits the tenant (a shared one admits every tenant). */
export function admitsTenant(runner: Pick<RankedRunner, "tenants">, tenant: string): boolean {
  return !runner.tenants || runner.tenants.includes(tenant);
}

/** The runner serves the language ("" = a call about no one language: any runner does). */
export function servesLanguage(runner: Pick<RankedRunner, "languages">, language: string): boolean {
  return language === "" || runner.languages.includes(ANY_LANGUAGE) || runner.languages.includes(language);
}

/** The runners that admit the key's tenant and serve its language, best first: its owner leads. */
export function rankForKey<T extends RankedRunner>(key: RouteKey, runners: readonly T[]): T[] {
  return rankByHrw(
    key,
    runners.filter((runner) => admitsTenant(runner, key.tenant) && servesLanguage(runner, key.language)),
  );
}
