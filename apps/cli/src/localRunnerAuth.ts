// serve and mcp run their runner on a loopback port: any local user could call it. A random
// secret made per process (known only to this process's gateway) closes that port to them.
import { randomBytes } from "node:crypto";

/** Runner credentials for the in-process pair: 32 random bytes, base64url. */
export function localRunnerAuth(): { secret: string } {
  return { secret: randomBytes(32).toString("base64url") };
}
