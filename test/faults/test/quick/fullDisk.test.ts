// The workspace volume full (a 4 MiB tmpfs filled to the last byte) under `lspmesh serve`: a
// write answers UNAVAILABLE naming ENOSPC and changes nothing (no half-written file, no temporary
// left behind), reads keep answering, and once space is freed the same write succeeds. Needs
// root to mount the tmpfs; elsewhere the case is skipped and says why.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturePath, startServe } from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";

let mountPoint: string;
let mounted = false;
let why = "";

beforeAll(() => {
  mountPoint = mkdtempSync(join(tmpdir(), "lspmesh-full-disk-"));
  const mount = spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint], { encoding: "utf8" });
  mounted = mount.status === 0;
  why = mounted
    ? ""
    : `cannot mount a tmpfs here (${(mount.stderr || mount.error?.message || "").trim()}); run as root`;
  if (!mounted) console.warn(`full-disk case skipped: ${why}`);
});

afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

test("a full workspace volume: writes refused with ENOSPC and nothing changed, reads go on, writes resume when space is freed", async (context) => {
  if (!mounted) context.skip(why);
  const workspace = join(mountPoint, "workspace");
  cpSync(fixturePath("typescript-basic"), workspace, { recursive: true });
  await using serve = await startServe(workspace);
  const client = new Client({ name: "full-disk", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      return { ok: !result.isError, text: result.content.map((part) => part.text ?? "").join("\n") };
    };
    const hover = () => call("hover", { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 });
    expect((await hover()).ok).toBe(true);

    // Fill the volume to the last byte.
    const filler = join(mountPoint, "filler");
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
    } catch {
      // dd stops with ENOSPC: the volume is full.
    }
    const target = join(workspace, "src", "greeter.ts");
    const before = sha(target);
    const edit = {
      files: [
        {
          file: "src/greeter.ts",
          edits: [{ line: 1, column: 1, end_line: 1, end_column: 1, new_text: `// ${"x".repeat(8_000)}\n` }],
        },
      ],
    };
    const refused = await call("apply_workspace_edit", { edit });
    expect(refused.ok).toBe(false);
    expect(refused.text).toMatch(/^UNAVAILABLE: the workspace could not be written \(ENOSPC\); no file was changed/);
    expect(sha(target)).toBe(before);
    expect(
      (readdirSync(workspace, { recursive: true }) as string[]).filter((name) => name.includes(".lspmesh-")),
    ).toEqual([]);
    // Reads do not need the disk's space.
    expect((await hover()).ok).toBe(true);

    // Space freed: the same write goes through.
    rmSync(filler);
    const applied = await call("apply_workspace_edit", { edit });
    expect(applied.ok, applied.text).toBe(true);
    expect(readFileSync(target, "utf8").startsWith("// xxx")).toBe(true);
    expect((await hover()).ok).toBe(true);
  } finally {
    await client.close();
  }
});
