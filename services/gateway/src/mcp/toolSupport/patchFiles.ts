// The files a unified diff changes, read from its `--- a/…` / `+++ b/…` headers, for routing a
// check of the patch to the runner of their language. The runner parses the patch itself (and
// applies the workspace path rules); this only has to find the names.

/** C-style escapes git uses in quoted file names (`"b/na\tme"`); octal escapes are UTF-8 bytes. */
const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  '"': '"',
  "\\": "\\",
};

function unquoted(quoted: string): string {
  const body = quoted.slice(1, quoted.lastIndexOf('"') > 0 ? quoted.lastIndexOf('"') : undefined);
  const bytes: Buffer[] = [];
  for (const match of body.matchAll(/\\([0-7]{3}|.)|[^\\]+/gsu)) {
    const escaped = match[1];
    if (escaped === undefined) bytes.push(Buffer.from(match[0], "utf8"));
    else if (/^[0-7]{3}$/.test(escaped)) bytes.push(Buffer.from([Number.parseInt(escaped, 8) & 0xff]));
    else bytes.push(Buffer.from(ESCAPES[escaped] ?? escaped, "utf8"));
  }
  return Buffer.concat(bytes).toString("utf8");
}

/** The path of a header line's name (after `--- ` or `+++ `); undefined for /dev/null (created or deleted). */
function headerPath(name: string, prefix: "a/" | "b/"): string | undefined {
  // diff -u appends a tab and a timestamp; git quotes names with special characters.
  const path = name.startsWith('"') ? unquoted(name) : (name.split("\t")[0] ?? "").trimEnd();
  if (path === "/dev/null" || path === "") return undefined;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * Every file a unified diff changes, in order, each once: the `+++` name, or the `---` name when
 * the file is deleted. Hunk bodies are skipped by their line counts, so a removed line that reads
 * `-- x` is never taken for a header.
 */
export function patchFiles(patch: string): string[] {
  const lines = patch.split(/\r?\n/);
  const files = new Set<string>();
  let oldLeft = 0;
  let newLeft = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (oldLeft > 0 || newLeft > 0) {
      const kind = line[0];
      // Some tools strip the space of an empty context line.
      if (kind === " " || line === "") {
        oldLeft--;
        newLeft--;
        continue;
      }
      if (kind === "-") {
        oldLeft--;
        continue;
      }
      if (kind === "+") {
        newLeft--;
        continue;
      }
      if (kind === "\\") continue; // "\ No newline at end of file"
      // A hunk shorter than its header said: read the line as outside any hunk.
      oldLeft = 0;
      newLeft = 0;
    }
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    const next = lines[index + 1];
    if (line.startsWith("--- ") && next?.startsWith("+++ ")) {
      const file = headerPath(next.slice(4), "b/") ?? headerPath(line.slice(4), "a/");
      if (file) files.add(file);
      index++;
    }
  }
  return [...files];
}
