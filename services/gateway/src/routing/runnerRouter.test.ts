import { rankByHrw } from "@lspmesh/events";
import { describe, expect, test } from "vitest";
import { GatewayError } from "../errors.js";
import type { RunnerDirectory, RunnerEntry } from "./runnerDirectory.js";
import { HrwRunnerRouter } from "./runnerRouter.js";

function directory(entries: RunnerEntry[]): RunnerDirectory & { entries: RunnerEntry[] } {
  return {
    entries,
    loaded: true,
    live() {
      return this.entries;
    },
    known() {
      return this.entries.map((entry) => ({ ...entry, live: true }));
    },
    async close() {},
  };
}

const runner = (id: string, languages = ["typescript"], tenants?: string[]): RunnerEntry => ({
  id,
  address: `127.0.0.1:${7000 + id.charCodeAt(id.length - 1)}`,
  languages,
  tenants,
  load: 0,
});

const key = { tenant: "acme", workspace: "web", language: "typescript" };

describe("HRW runner router", () => {
  test("candidates are the HRW ranking of runners serving the language and admitting the tenant", async () => {
    const entries = [runner("r1"), runner("r2"), runner("r3", ["python"]), runner("r4", ["typescript"], ["globex"])];
    const router = new HrwRunnerRouter(directory(entries));
    try {
      const ids = router.candidates(key).map((handle) => handle.id);
      expect(ids).toEqual(rankByHrw(key, [entries[0]!, entries[1]!]).map((entry) => entry.id));
      expect(
        router
          .candidates({ ...key, tenant: "globex" })
          .map((h) => h.id)
          .sort(),
      ).toEqual(["r1", "r2", "r4"]);
      expect(router.languagesFor("acme")).toEqual(["python", "typescript"]);
    } finally {
      await router.close();
    }
  });

  test("a runner reported unavailable goes last until its suspicion ends or it answers", async () => {
    let now = 0;
    const router = new HrwRunnerRouter(directory([runner("r1"), runner("r2"), runner("r3")]), {
      suspectMs: 1000,
      now: () => now,
    });
    try {
      const first = router.candidates(key)[0]!.id;
      router.reportUnavailable(first);
      const during = router.candidates(key).map((h) => h.id);
      expect(during[0]).not.toBe(first);
      expect(during.at(-1)).toBe(first);
      expect(router.runners().find((r) => r.id === first)?.suspect).toBe(true);
      now = 1001;
      expect(router.candidates(key)[0]!.id).toBe(first);
      router.reportUnavailable(first);
      router.reportAnswered(first);
      expect(router.candidates(key)[0]!.id).toBe(first);
    } finally {
      await router.close();
    }
  });

  test("a suspect runner that leaves the live set and registers again is first in line at once", async () => {
    const entries = [runner("r1"), runner("r2"), runner("r3")];
    const dir = directory(entries);
    const router = new HrwRunnerRouter(dir, { suspectMs: 60_000, now: () => 0 });
    try {
      const first = router.candidates(key)[0]!;
      // Its SIGTERM: a call in flight failed at the transport, then its entry left the registry.
      router.reportUnavailable(first.id);
      expect(router.candidates(key).at(-1)!.id).toBe(first.id);
      dir.entries = entries.filter((entry) => entry.id !== first.id);
      expect(router.candidates(key).map((h) => h.id)).not.toContain(first.id);
      // The replaced pod registers with the same id, well within the 60 s of suspicion.
      dir.entries = entries;
      expect(router.candidates(key)[0]!.id).toBe(first.id);
      expect(router.runners().find((r) => r.id === first.id)?.suspect).toBe(false);
    } finally {
      await router.close();
    }
  });

  test("one channel per runner, reused across keys; a new address gets a new channel", async () => {
    const dir = directory([runner("r1")]);
    const router = new HrwRunnerRouter(dir);
    try {
      const a = router.candidates(key)[0]!;
      const b = router.candidates({ ...key, workspace: "api" })[0]!;
      expect(a.client).toBe(b.client);
      dir.entries = [{ ...runner("r1"), address: "127.0.0.1:1" }];
      expect(router.candidates(key)[0]!.client).not.toBe(a.client);
    } finally {
      await router.close();
    }
  });

  test("no live runner is UNAVAILABLE; none for the language is NO_LANGUAGE_SERVER", async () => {
    const router = new HrwRunnerRouter(directory([runner("r1", ["python"])]));
    try {
      expect(() => router.candidates(key)).toThrow(expect.objectContaining({ code: "NO_LANGUAGE_SERVER" }));
      expect(() => router.candidates({ ...key, tenant: "x", language: "" })).not.toThrow();
      const empty = new HrwRunnerRouter(directory([]));
      expect(() => empty.candidates(key)).toThrow(GatewayError);
      expect(empty.ready()).toBe(false);
      await empty.close();
      expect(() => empty.candidates(key)).toThrow(/shutting down/);
    } finally {
      await router.close();
    }
  });

  test("a file is routed by the extensions runners advertise, languages-file languages included", async () => {
    const ts = { ...runner("r1", ["typescript-native"]), extensions: { "typescript-native": [".ts", ".tsx"] } };
    const lua = { ...runner("r2", ["lua"], ["acme"]), extensions: { lua: [".lua"] } };
    const router = new HrwRunnerRouter(directory([ts, lua]));
    try {
      expect(router.languageOf("acme", "src/App.TSX")).toBe("typescript-native");
      expect(router.languageOf("acme", "init.lua")).toBe("lua");
      expect(router.candidates({ ...key, language: router.languageOf("acme", "a.ts") }).map((h) => h.id)).toEqual([
        "r1",
      ]);
      // Another tenant does not see the lua pool that only admits acme.
      expect(() => router.languageOf("globex", "init.lua")).toThrow(
        expect.objectContaining({ code: "NO_LANGUAGE_SERVER", message: expect.stringContaining('".lua" files') }),
      );
      expect(() => router.languageOf("acme", "README")).toThrow(
        /files without an extension like README.*served: \.lua, \.ts, \.tsx/,
      );
      // No live runner admits the tenant at all (a pinned pool late with its heartbeat): a wait.
      const pinned = new HrwRunnerRouter(directory([lua]));
      expect(() => pinned.languageOf("globex", "a.ts")).toThrow(expect.objectContaining({ code: "UNAVAILABLE" }));
      expect(() => pinned.languageOf("acme", "a.ts")).toThrow(expect.objectContaining({ code: "NO_LANGUAGE_SERVER" }));
      await pinned.close();
    } finally {
      await router.close();
    }
  });

  test("a runner that did not advertise extensions (a static one) decides for itself", async () => {
    const router = new HrwRunnerRouter(directory([runner("r1", ["*"])]));
    try {
      expect(router.languageOf("acme", "notes.xyz")).toBe("");
      expect(router.candidates({ ...key, language: "" }).map((h) => h.id)).toEqual(["r1"]);
    } finally {
      await router.close();
    }
  });

  test("two pools claiming one extension: every gateway picks the same, the first by id", async () => {
    const a = { ...runner("r1", ["typescript"]), extensions: { typescript: [".ts"] } };
    const b = { ...runner("r2", ["typescript-native"]), extensions: { "typescript-native": [".ts"] } };
    const router = new HrwRunnerRouter(directory([b, a]));
    try {
      expect(router.languageOf("acme", "a.ts")).toBe("typescript");
    } finally {
      await router.close();
    }
  });
});
