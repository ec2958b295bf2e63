// Edits made outside the runner reach the language server: seen on disk by the workspace watcher,
// or announced only through `lspmesh.fs.<tenant>.<workspace>` (a network volume, where inotify
// does not see other machines' writes). Real nats-server, real typescript-language-server.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeJson, encodeJson, type FileEventsReply, fileEventsSubject } from "@lspmesh/events";
import { type NatsServer, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageRegistry, NatsEventBus, typescriptLanguage } from "./runnerInternals.js";
import { symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

/** greeter.ts with one line more on top, and makeGreeting returning a number (line 15). */
const GREETER_V2 = `// version 2: makeGreeting counts
/** Something that can greet. */
export interface Greeter {
  greet(name: string): string;
}

/** Greets politely. */
export class PoliteGreeter implements Greeter {
  greet(name: string): string {
    return \`Good day, \${name}\`;
  }
}

/** Builds the greeting for a name. */
export function makeGreeting(name: string): number {
  return new PoliteGreeter().greet(name).length;
}
`;

/** Back to a string, three lines lower than v2 (line 18). */
const GREETER_V3 = GREETER_V2.replace("// version 2: makeGreeting counts\n", "// version 3\n//\n//\n//\n")
  .replace("makeGreeting(name: string): number", "makeGreeting(name: string): string")
  .replace("greet(name).length;", "greet(name);");

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
});

afterAll(async () => {
  await nc?.close();
  await nats?.close();
});

type Harness = FixtureRunner;

/** Announces `files` changed through `lspmesh.fs.<tenant>.<workspace>`, as a writer would; the runner's reply. */
async function announceChanged(...files: string[]): Promise<FileEventsReply> {
  const changes = files.map((file) => ({ file, kind: "changed" }));
  const reply = await nc.request(fileEventsSubject(ws.tenant, ws.workspace), encodeJson({ v: 1, changes }), {
    timeout: 15_000,
  });
  return decodeJson<FileEventsReply>(reply.data);
}

/** A runner on a copy of typescript-basic whose events go through NATS; closing it closes its bus too. */
async function startHarness(options: { watchWorkspaces: boolean; languages?: LanguageRegistry }): Promise<Harness> {
  const bus = await NatsEventBus.connect({ servers: nats.url, reconnectWaitMs: 100 });
  const env = await startFixtureRunner({
    fixture: "typescript-basic",
    events: bus,
    runnerId: `documents-${options.watchWorkspaces ? "watching" : "announced"}`,
    watchWorkspaces: options.watchWorkspaces,
    watchDebounceMs: 50,
    languages: options.languages,
  }).catch(async (error: unknown) => {
    await bus.close();
    throw error;
  });
  // The runner first (it delivers what is queued), then its bus.
  const close = async () => {
    await env.close();
    await bus.close();
  };
  return { ...env, close, [Symbol.asyncDispose]: close };
}

const definitionLine = async (h: Harness) => {
  const answer = await h.client.findDefinition({ workspace: ws, at: symbol("src/main.ts", "makeGreeting", 4) });
  return answer.locations.map((l) => `${l.file}:${l.range?.start?.line}`);
};

const diagnosticsOf = async (h: Harness, files: string[]) => {
  const answer = await h.client.diagnostics({ workspace: ws, files, waitMs: 15_000 });
  return {
    epoch: answer.epoch,
    files: Object.fromEntries(
      answer.files.map((f) => [
        f.file,
        {
          fresh: f.fresh,
          version: f.version,
          codes: f.diagnostics.map((d) => `${d.code}@${d.range?.start?.line}:${d.range?.start?.column}`),
        },
      ]),
    ),
  };
};

describe("an edit made on disk, seen by the workspace watcher", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ watchWorkspaces: true });
  });
  afterAll(() => h?.close());

  test("is reflected in the next definition and diagnostics calls, even in a file already open", async () => {
    // greeter.ts open too: from now on the server reads it only from what the runner sends.
    const before = await diagnosticsOf(h, ["src/broken.ts", "src/main.ts", "src/greeter.ts"]);
    expect(before.files["src/broken.ts"]).toEqual({ fresh: true, version: 1, codes: ["2322@3:14"] });
    expect(before.files["src/main.ts"]).toMatchObject({ fresh: true, codes: [] });
    expect(before.files["src/greeter.ts"]).toEqual({ fresh: true, version: 1, codes: [] });
    expect(await definitionLine(h)).toEqual(["src/greeter.ts:14"]);

    writeFileSync(join(h.dir, "src/greeter.ts"), GREETER_V2);

    expect(await definitionLine(h)).toEqual(["src/greeter.ts:15"]);
    const after = await diagnosticsOf(h, ["src/broken.ts", "src/main.ts"]);
    // broken.ts did not change: its error is gone because greeter.ts now returns a number.
    expect(after.files["src/broken.ts"]).toMatchObject({ fresh: true, codes: [] });
    // main.ts did not change either: `.length` of a number is a new error.
    expect(after.files["src/main.ts"]).toMatchObject({ fresh: true, codes: ["2339@6:48"] });
    expect(after.epoch).toBeGreaterThan(before.epoch);
  });

  test("diagnostics older than the content, or only pushed, are never passed off as current", async () => {
    // greeter.ts (now version 2) stays clean, and typescript-language-server publishes nothing
    // for a clean file that stays clean; whatever it pushed may be a first, syntax-only result.
    const atOnce = await h.client.diagnostics({ workspace: ws, files: ["src/greeter.ts"], waitMs: 0 });
    // The runner pulls recently used documents again after a change, in the background: by now
    // that pull may have answered (then it is current), or not (then the answer says so).
    if (atOnce.files[0]?.fresh) {
      expect(atOnce.files[0]).toMatchObject({ file: "src/greeter.ts", version: 2, diagnostics: [] });
      expect(atOnce.status?.partial).toBe(false);
    } else {
      expect(atOnce.files[0]).toMatchObject({ file: "src/greeter.ts", fresh: false, diagnostics: [] });
      expect(atOnce.status?.partial).toBe(true);
      expect(atOnce.status?.note).toContain("no diagnostics newer than the current content of src/greeter.ts");
    }

    // With time to wait, tsserver is asked for the file's complete diagnostics.
    const waited = await h.client.diagnostics({ workspace: ws, files: ["src/greeter.ts"], waitMs: 5000 });
    expect(waited.files[0]).toMatchObject({ file: "src/greeter.ts", fresh: true, version: 2, diagnostics: [] });
    expect(waited.status?.partial).toBe(false);
    // What was asked for stays known as complete until the next change.
    const again = await h.client.diagnostics({ workspace: ws, files: ["src/greeter.ts"], waitMs: 0 });
    expect(again.files[0]).toMatchObject({ fresh: true, version: 2 });
  });

  test("a quiet workspace is not partial forever: after an edit every file is called fresh again", async () => {
    writeFileSync(join(h.dir, "src/greeter.ts"), GREETER_V3);
    await waitFor("the watcher synced greeter.ts", async () => (await definitionLine(h))[0] === "src/greeter.ts:18");
    const whole = await h.client.diagnostics({ workspace: ws, files: [], waitMs: 10_000 });
    // The whole status on failure: its note says what was still missing.
    expect(whole.status).toMatchObject({ partial: false });
    expect(whole.files.map((f) => [f.file, f.fresh, f.diagnostics.map((d) => d.code)])).toEqual([
      ["src/broken.ts", true, ["2322"]],
      ["src/greeter.ts", true, []],
      ["src/main.ts", true, []],
    ]);
    // Nothing changed since: the next answer is complete at once.
    const again = await h.client.diagnostics({ workspace: ws, files: [], waitMs: 0 });
    // The whole status on failure: its note says which file was no longer fresh.
    expect(again.status).toMatchObject({ partial: false });
    expect(again.files.every((f) => f.fresh)).toBe(true);

    // An event repeated for a write already synced (a watcher's late second event, a writer's
    // announcement of it) finds the open document's text unchanged: still complete at once.
    expect(await announceChanged("src/greeter.ts")).toMatchObject({ applied: 1, refused: [] });
    const repeated = await h.client.diagnostics({ workspace: ws, files: [], waitMs: 0 });
    expect(repeated.status).toMatchObject({ partial: false });
    expect(repeated.files.every((f) => f.fresh)).toBe(true);

    // A file the server holds closed (it reads it from disk) changed: every file's diagnostics
    // may have, so they are not current until checked again.
    writeFileSync(join(h.dir, "src/extra.ts"), "export const extra = 1;\n");
    expect(await announceChanged("src/extra.ts")).toMatchObject({ applied: 1, refused: [] });
    const moved = await h.client.diagnostics({ workspace: ws, files: ["src/main.ts"], waitMs: 0 });
    expect(moved.status).toMatchObject({ partial: true });
    expect(moved.files[0]).toMatchObject({ file: "src/main.ts", fresh: false });
  });
});

describe("a server that only pushes diagnostics (typescript-language-server without the pull command)", () => {
  let h: Harness;
  beforeAll(async () => {
    const pushOnly = { ...typescriptLanguage(), diagnosticsPull: undefined };
    h = await startHarness({ watchWorkspaces: true, languages: new LanguageRegistry([pushOnly]) });
  });
  afterAll(() => h?.close());

  test("a file left unannounced after a change is reopened and checked again, so a quiet workspace ends fresh", async () => {
    const before = await diagnosticsOf(h, ["src/broken.ts", "src/main.ts", "src/greeter.ts"]);
    expect(before.files["src/greeter.ts"]).toEqual({ fresh: true, version: 1, codes: [] });
    // Clean to clean: the server publishes nothing for greeter.ts.
    writeFileSync(join(h.dir, "src/greeter.ts"), GREETER_V3);
    await waitFor("the watcher synced greeter.ts", async () => (await definitionLine(h))[0] === "src/greeter.ts:18");
    const atOnce = await h.client.diagnostics({ workspace: ws, files: ["src/greeter.ts"], waitMs: 0 });
    expect(atOnce.files[0]).toMatchObject({ fresh: false, version: 1 });
    const whole = await h.client.diagnostics({ workspace: ws, files: [], waitMs: 10_000 });
    // The whole status on failure: its note says what was still missing.
    expect(whole.status).toMatchObject({ partial: false });
    expect(whole.files.map((f) => [f.file, f.fresh, f.diagnostics.map((d) => d.code)])).toEqual([
      ["src/broken.ts", true, ["2322"]],
      ["src/greeter.ts", true, []],
      ["src/main.ts", true, []],
    ]);
    // Reopened as version 3 with the same text: the server checked it again.
    expect(whole.files.find((f) => f.file === "src/greeter.ts")?.version).toBe(3);
  });
});

describe("an edit announced only through NATS (no local watcher, as on a network volume)", () => {
  let h: Harness;
  beforeAll(async () => {
    // tsserver leaves file watching to the client (useClientFileWatcher), so nothing but the
    // runner's watched-files notifications tells it about files it has not opened.
    const base = typescriptLanguage();
    const init = base.initializationOptions as { tsserver: Record<string, unknown> };
    const clientWatching = {
      ...base,
      initializationOptions: { ...init, tsserver: { ...init.tsserver, useClientFileWatcher: true } },
    };
    h = await startHarness({ watchWorkspaces: false, languages: new LanguageRegistry([clientWatching]) });
  });
  afterAll(() => h?.close());

  const announce = (file: string) => announceChanged(file, "../outside.ts");

  test("is unseen until announced, then reflected in definition and diagnostics", async () => {
    const before = await diagnosticsOf(h, ["src/broken.ts", "src/main.ts"]);
    expect(before.files["src/broken.ts"]).toMatchObject({ fresh: true, codes: ["2322@3:14"] });
    expect(await definitionLine(h)).toEqual(["src/greeter.ts:14"]);

    writeFileSync(join(h.dir, "src/greeter.ts"), GREETER_V2);
    // Nothing watches the disk: the server still has the old greeter.ts.
    expect(await definitionLine(h)).toEqual(["src/greeter.ts:14"]);

    const reply = await announce("src/greeter.ts");
    expect(reply).toMatchObject({ v: 1, runner: "documents-announced", applied: 1 });
    expect(reply.refused).toEqual([
      { file: "../outside.ts", reason: expect.stringContaining("outside the workspace") },
    ]);

    expect(await definitionLine(h)).toEqual(["src/greeter.ts:15"]);
    const after = await diagnosticsOf(h, ["src/broken.ts", "src/main.ts"]);
    expect(after.files["src/broken.ts"]).toMatchObject({ fresh: true, codes: [] });
    expect(after.files["src/main.ts"]).toMatchObject({ fresh: true, codes: ["2339@6:48"] });
    expect(after.epoch).toBeGreaterThan(before.epoch);
  });

  test("an open document whose file changed is synced again when announced", async () => {
    await h.client.documentSymbols({ workspace: ws, file: "src/greeter.ts" });
    writeFileSync(join(h.dir, "src/greeter.ts"), GREETER_V3);
    expect(await definitionLine(h)).toEqual(["src/greeter.ts:15"]);
    expect((await announce("src/greeter.ts")).applied).toBe(1);

    expect(await definitionLine(h)).toEqual(["src/greeter.ts:18"]);
    const after = await diagnosticsOf(h, ["src/main.ts", "src/broken.ts"]);
    expect(after.files["src/main.ts"]).toMatchObject({ fresh: true, codes: [] });
    expect(after.files["src/broken.ts"]).toMatchObject({ fresh: true, codes: ["2322@3:14"] });
  });

  test("after a NATS outage, open documents are synced again (announcements may have been missed)", async () => {
    expect(await definitionLine(h)).toEqual(["src/greeter.ts:18"]);
    await nats.stop();
    writeFileSync(join(h.dir, "src/greeter.ts"), GREETER_V2); // never announced
    await nats.restart();
    await waitFor(
      "greeter.ts synced again once the runner reconnected",
      async () => (await definitionLine(h))[0] === "src/greeter.ts:15",
    );
  });
});
