import { invalidArgument } from "../errors.js";

/** Tenant and workspace ids (DESIGN.md 3.1): safe as a path segment and as a NATS token. */
export const WORKSPACE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function assertWorkspaceId(kind: "tenant" | "workspace", id: string): void {
  if (!WORKSPACE_ID_PATTERN.test(id)) {
    throw invalidArgument(
      `invalid ${kind} id '${id.slice(0, 70)}': use 1–63 characters of a-z, 0-9, '_' or '-', starting with a letter or digit`,
    );
  }
}
