// What a failed deployment test prints of each container's log.

import { podmanLogs } from "./podman.js";

/**
 * A log without the runs of one repeated warning (a NATS server logs "Healthcheck failed" for every
 * probe while it is not current: 4 a second under startNats), kept as the first and a count, so a
 * tail of a failed start shows what led to it.
 */
export function withoutRepeats(log: string): string {
  const out: string[] = [];
  let repeated = 0;
  let previous = "";
  const flush = () => {
    if (repeated > 0) out.push(`  … repeated ${repeated} more times`);
    repeated = 0;
  };
  for (const line of log.split("\n")) {
    const text = line.replace(/^\S*\s*\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d+ /, "");
    if (text === previous && text !== "") {
      repeated++;
      continue;
    }
    flush();
    out.push(line);
    previous = text;
  }
  flush();
  return out.join("\n");
}

/** The last `count` lines of a text. */
export function lastLines(text: string, count: number): string {
  const ending = text.endsWith("\n") ? "\n" : "";
  const lines = (ending ? text.slice(0, -1) : text).split("\n");
  return lines.slice(-count).join("\n") + ending;
}

/** The last `lines` lines of a container's log, runs of one message collapsed; the error's text if it has none. */
export async function containerLogTail(container: string, lines: number): Promise<string> {
  return lastLines(withoutRepeats(await podmanLogs(container).catch(String)), lines);
}
