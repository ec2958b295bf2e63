// What a confined process may touch, and how a parent hands that to the launcher on its command
// line (base64url of JSON: one argument, no quoting issues, readable with `base64 -d` when debugging).

import { isAbsolute } from "node:path";
import { z } from "zod";

export interface ConfinementPolicy {
  /** Folders (or files) with every right: read, write, create, remove, rename inside. */
  readWrite: string[];
  /** Folders (or files) to read, list and execute. */
  readOnly: string[];
  /** Single files to read and execute; a folder here is an error (it would grant everything below it). */
  readOnlyFiles?: string[];
  /** Deny every TCP bind and connect (kernels with Landlock ABI ≥ 4; UDP is not covered). */
  denyNetwork: boolean;
}

/** Why a process could not be confined (or a policy could not be read). */
export class ConfinementError extends Error {
  override name = "ConfinementError";
}

const absolutePath = z.string().refine(isAbsolute, { message: "must be an absolute path" });
const policySchema = z.strictObject({
  readWrite: z.array(absolutePath),
  readOnly: z.array(absolutePath),
  readOnlyFiles: z.array(absolutePath).optional(),
  denyNetwork: z.boolean(),
});

export function encodePolicy(policy: ConfinementPolicy): string {
  return Buffer.from(JSON.stringify(checkPolicy(policy))).toString("base64url");
}

export function decodePolicy(encoded: string): ConfinementPolicy {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
  } catch {
    throw new ConfinementError("confinement policy is not base64url-encoded JSON");
  }
  return checkPolicy(value);
}

/** The policy itself when well-formed (absolute paths, no unknown keys); throws ConfinementError otherwise. */
export function checkPolicy(value: unknown): ConfinementPolicy {
  const parsed = policySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw new ConfinementError(`invalid confinement policy: ${where}${issue?.message ?? "malformed"}`);
}
