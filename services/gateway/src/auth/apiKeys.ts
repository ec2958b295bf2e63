// Static API keys, stored as SHA-256 hashes in a JSON file (a mounted secret). The file never
// holds a usable token: `printf %s "$TOKEN" | sha256sum` gives the hash to put in it.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { ID_PATTERN } from "@lspmesh/proto";
import { knownScopes, type Principal, SCOPE_CHOICES } from "./principal.js";

export interface ApiKeyRecord {
  /** A name for logs and audit lines (e.g. "ci-bot"). */
  id: string;
  /** Lower-case hex SHA-256 of the token's UTF-8 bytes. */
  sha256: string;
  tenant: string;
  scopes: string[];
  workspaces?: string[];
}

export function sha256Hex(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export class ApiKeyStore {
  private byHash = new Map<string, Principal>();

  /** Throws an Error naming the bad record and field. */
  constructor(records: readonly ApiKeyRecord[]) {
    this.byHash = ApiKeyStore.index(records);
  }

  /** Replaces every key at once (a rotated keys file); throws, keeping the old keys, on a bad record. */
  replace(records: readonly ApiKeyRecord[]): void {
    this.byHash = ApiKeyStore.index(records);
  }

  private static index(records: readonly ApiKeyRecord[]): Map<string, Principal> {
    const byHash = new Map<string, Principal>();
    records.forEach((record, index) => {
      const where = `api key #${index + 1}${typeof record?.id === "string" ? ` ('${record.id}')` : ""}`;
      if (!record || typeof record !== "object") throw new Error(`${where}: not an object`);
      if (typeof record.id !== "string" || record.id === "") throw new Error(`${where}: give an id (a name for logs)`);
      if (typeof record.sha256 !== "string" || !/^[0-9a-f]{64}$/i.test(record.sha256))
        throw new Error(`${where}: sha256 must be 64 hex digits (printf %s "$TOKEN" | sha256sum)`);
      if (typeof record.tenant !== "string" || !ID_PATTERN.test(record.tenant))
        throw new Error(`${where}: tenant must be a tenant id (a-z, 0-9, '_' or '-')`);
      if (!Array.isArray(record.scopes) || knownScopes(record.scopes).length === 0)
        throw new Error(`${where}: scopes must list ${SCOPE_CHOICES}`);
      if (
        record.workspaces !== undefined &&
        (!Array.isArray(record.workspaces) || !record.workspaces.every((w) => ID_PATTERN.test(w)))
      )
        throw new Error(`${where}: workspaces must be a list of workspace ids`);
      const hash = record.sha256.toLowerCase();
      if (byHash.has(hash)) throw new Error(`${where}: the same key hash appears twice`);
      byHash.set(hash, {
        tenant: record.tenant,
        subject: `key:${record.id}`,
        scopes: knownScopes(record.scopes),
        workspaces: record.workspaces,
      });
    });
    return byHash;
  }

  /** The principal of a presented token, or undefined. */
  verify(token: string): Principal | undefined {
    return this.byHash.get(sha256Hex(token));
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Reads `{ "keys": [ApiKeyRecord, …] }`. */
  static fromFile(path: string): ApiKeyStore {
    return inFile(path, () => new ApiKeyStore(readKeysFile(path)));
  }

  /** Reloads the keys from the file; throws (keeping the current keys) when it is bad. */
  reloadFrom(path: string): void {
    inFile(path, () => this.replace(readKeysFile(path)));
  }
}

function readKeysFile(path: string): ApiKeyRecord[] {
  let parsed: { keys?: ApiKeyRecord[] };
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as { keys?: ApiKeyRecord[] };
  } catch (error) {
    throw new Error(`cannot read the API keys file ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed?.keys)) throw new Error(`the API keys file ${path} needs a "keys" list`);
  return parsed.keys;
}

/** Runs `load`, naming the file in its error. */
function inFile<T>(path: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(message.includes(path) ? message : `the API keys file ${path}: ${message}`);
  }
}
