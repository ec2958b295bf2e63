import { describe, expect, test } from "vitest";
import { collectDiagnostics } from "./collect.js";
import { CheckError, type DiagnosticsSource, type SourceAnswer, SourceError } from "./source.js";

/** A scripted source: which files exist, which have a language server, how often a file answers stale. */
class FakeSource implements DiagnosticsSource {
  readonly description = "fake";
  readonly maxWaitMs = 60_000;
  readonly calls: Array<{ files: string[]; waitMs: number }> = [];
  private readonly staleLeft: Map<string, number>;

  constructor(
    private readonly options: {
      local?: boolean;
      missing?: string[];
      staleTimes?: Record<string, number>;
      failWith?: string;
    } = {},
  ) {
    this.staleLeft = new Map(Object.entries(options.staleTimes ?? {}));
  }

  supports(file: string): boolean | undefined {
    return this.options.local ? file.endsWith(".ts") : undefined;
  }

  async diagnostics(files: string[], waitMs: number): Promise<SourceAnswer> {
    this.calls.push({ files, waitMs });
    if (this.options.failWith) throw new SourceError(this.options.failWith, "the server crashed");
    const unknown = files.find((file) => !file.endsWith(".ts"));
    if (unknown) throw new SourceError("NO_LANGUAGE_SERVER", `no language server for '${unknown}'`);
    const missing = files.find((file) => this.options.missing?.includes(file));
    if (missing) throw new SourceError("NOT_FOUND", `no such file in the workspace: '${missing}'`);
    return {
      state: "ready",
      server: "fake-ls",
      files: files.map((file) => {
        const stale = this.staleLeft.get(file) ?? 0;
        if (waitMs > 0) this.staleLeft.set(file, stale - 1);
        return { file, fresh: waitMs > 0 && stale <= 0, findings: [] };
      }),
    };
  }

  async close(): Promise<void> {}
}

const soon = () => Date.now() + 60_000;

describe("collecting diagnostics", () => {
  test("without a local registry, one file per extension is probed; refused extensions are skipped everywhere", async () => {
    const source = new FakeSource();
    const files = ["a.ts", "README.md", "b.ts", "docs/x.md", "c.ts"];
    const { outcomes, servers } = await collectDiagnostics(source, files, { deadline: soon(), chunkSize: 2 });
    expect(Object.fromEntries([...outcomes].map(([file, outcome]) => [file, outcome.kind]))).toEqual({
      "README.md": "skipped",
      "docs/x.md": "skipped",
      "a.ts": "checked",
      "b.ts": "checked",
      "c.ts": "checked",
    });
    // Probes (wait 0) for .ts and .md, then only .ts files in chunks of 2.
    expect(source.calls.filter((c) => c.waitMs === 0).map((c) => c.files)).toEqual([["a.ts"], ["README.md"]]);
    expect(source.calls.filter((c) => c.waitMs > 0).map((c) => c.files)).toEqual([["a.ts", "b.ts"], ["c.ts"]]);
    expect([...servers]).toEqual(["fake-ls"]);
  });

  test("a local registry decides without asking", async () => {
    const source = new FakeSource({ local: true });
    const { outcomes } = await collectDiagnostics(source, ["a.ts", "x.md"], { deadline: soon() });
    expect(outcomes.get("x.md")).toEqual({
      kind: "skipped",
      reason: "no language server is configured for this file type",
    });
    expect(source.calls.map((c) => c.files)).toEqual([["a.ts"]]);
  });

  test("a request failing for one file is split, so the others are still checked", async () => {
    const source = new FakeSource({ local: true, missing: ["b.ts"] });
    const { outcomes } = await collectDiagnostics(source, ["a.ts", "b.ts", "c.ts"], { deadline: soon() });
    expect(outcomes.get("b.ts")).toEqual({ kind: "missing", reason: "no such file in the workspace: 'b.ts'" });
    expect(outcomes.get("a.ts")?.kind).toBe("checked");
    expect(outcomes.get("c.ts")?.kind).toBe("checked");
  });

  test("stale answers are asked again while time remains", async () => {
    const source = new FakeSource({ local: true, staleTimes: { "slow.ts": 2 } });
    const { outcomes } = await collectDiagnostics(source, ["fast.ts", "slow.ts"], { deadline: soon() });
    expect(outcomes.get("slow.ts")?.kind).toBe("checked");
    expect(source.calls.map((c) => c.files)).toEqual([["fast.ts", "slow.ts"], ["slow.ts"], ["slow.ts"]]);
  });

  test("past the deadline files are incomplete, not dropped and not clean", async () => {
    const source = new FakeSource({ local: true });
    const { outcomes } = await collectDiagnostics(source, ["a.ts"], { deadline: Date.now() - 1 });
    expect(outcomes.get("a.ts")).toEqual({
      kind: "incomplete",
      reason: "not checked within the timeout; raise --timeout",
    });
    expect(source.calls).toEqual([]);
  });

  test("a failed language server stops the check (infrastructure: exit 2)", async () => {
    const source = new FakeSource({ local: true, failWith: "SERVER_FAILED" });
    await expect(collectDiagnostics(source, ["a.ts"], { deadline: soon() })).rejects.toThrow(CheckError);
  });

  test("an unavailable source is asked a few times, then the check stops", async () => {
    const source = new FakeSource({ local: true, failWith: "UNAVAILABLE" });
    await expect(collectDiagnostics(source, ["a.ts"], { deadline: soon() })).rejects.toThrow(
      /fake: the server crashed/,
    );
    expect(source.calls).toHaveLength(4);
  });

  test("progress counts finished files", async () => {
    const seen: number[] = [];
    await collectDiagnostics(new FakeSource({ local: true }), ["a.ts", "b.ts", "c.md"], {
      deadline: soon(),
      onProgress: (n) => seen.push(n),
    });
    expect(seen).toEqual([1, 2, 3]);
  });
});
