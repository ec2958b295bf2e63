// The gateway's NATS identity follows a tenant's whole symbol index, however large: a watch of
// several megabytes is paced by JetStream flow control, which the identity must be allowed to
// answer (else the replay stalls and every symbol search waits for ever). Both auth modes.
import { NATS_USERS, NatsSymbolIndexStore, type SymbolIndexFileEntry, type SymbolIndexUpdate } from "@lspmesh/events";
import { type NatsServer, startNatsServer } from "@lspmesh/test-kit";
import { connect as natsConnect } from "@nats-io/transport-node";
import { afterEach, expect, test } from "vitest";

/** Files written: 300 of about 20 KB, 6 MB in all (far past one flow-control window). */
const FILES = 300;

let nats: NatsServer | undefined;
afterEach(async () => {
  await nats?.close();
  nats = undefined;
});

function entry(index: number): SymbolIndexFileEntry {
  const symbols = Array.from({ length: 60 }, (_, i) => ({
    name: `name${index}_${i}`,
    kind: "function",
    line: i + 1,
    column: 1,
    endLine: i + 1,
    endColumn: 10,
    exported: true,
    snippet: `export function name${index}_${i}() { ${"x".repeat(200)} }`,
  }));
  return {
    v: 1,
    file: `src/f${index}.ts`,
    language: "typescript",
    source: "typescript-syntax",
    epoch: 1,
    mtimeMs: 1,
    size: 1,
    symbols,
  };
}

for (const mode of ["jwt", "password"] as const) {
  test(`${mode}: the gateway identity replays a 6 MB symbol index to its end`, async () => {
    nats = await startNatsServer({ secured: { mode, tenants: ["acme"], runners: [{ id: "runner-1" }] } });
    const writer = await natsConnect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.runner("runner-1")) });
    const reader = await natsConnect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.gateway) });
    try {
      const written = new NatsSymbolIndexStore(writer);
      for (let i = 0; i < FILES; i++) await written.putFile("acme", "web", entry(i));
      const files = new Set<string>();
      const follower = await new NatsSymbolIndexStore(reader).follow("acme", (update: SymbolIndexUpdate) => {
        if (update.type === "file") files.add(update.entry.file);
      });
      expect(follower).toBeDefined();
      expect(files.size).toBe(FILES);
      follower?.close();
    } finally {
      await writer.close();
      await reader.close();
    }
  });
}
