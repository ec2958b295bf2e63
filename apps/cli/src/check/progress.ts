// Terminal niceties: a one-line progress display on stderr, redrawn in place, only when stderr is a
// terminal (CI logs and pipes get nothing; redrawn at most every 100 ms; done() erases it), and
// whether to colour the text report.

export interface Progress {
  update(line: string): void;
  done(): void;
}

const REDRAW_MS = 100;

export function progressLine(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(line) {
      const now = Date.now();
      if (now - last < REDRAW_MS) return;
      last = now;
      const width = Math.max(20, (stream.columns || 80) - 1);
      stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
      shown = true;
    },
    done() {
      if (shown) stream.write("\r\x1b[2K");
      shown = false;
    },
  };
}

/** Colour for a stream: only a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}
