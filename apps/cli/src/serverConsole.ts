// serve's console: one line when a language server starts, starts indexing (with its progress
// text), is ready (with the time it took), fails (with why) or is restarted — what a person
// watching the terminal needs to know, without the JSON logs.
import type { LifecycleEvent, ServerStateEvent } from "@lspmesh/lsp-runner";

export class ServerConsole {
  /** When each server (workspace/language) began its current start, ms since the epoch. */
  private readonly startedAt = new Map<string, number>();
  private readonly lastLine = new Map<string, string>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  readonly onServerState = (event: ServerStateEvent): void => {
    const key = `${event.workspace}/${event.language}`;
    if (event.state === "starting" || !this.startedAt.has(key)) this.startedAt.set(key, this.now());
    const elapsed = `${((this.now() - this.startedAt.get(key)!) / 1000).toFixed(1)} s`;
    const progress = event.progress ? `: ${event.progress}` : "";
    const line =
      event.state === "starting"
        ? `${event.language}: starting`
        : event.state === "indexing"
          ? `${event.language}: indexing${progress} (${elapsed})`
          : event.state === "ready"
            ? `${event.language}: ready (${elapsed})`
            : event.state === "stopped"
              ? `${event.language}: stopped`
              : `${event.language}: ${event.state}${progress}`;
    this.say(key, line);
    if (event.state === "stopped") this.startedAt.delete(key);
  };

  readonly onLifecycleEvent = (event: LifecycleEvent): void => {
    if (event.kind !== "failed") return;
    const key = `${event.workspace}/${event.language}`;
    this.say(
      key,
      `${event.language}: failed — ${firstLine(event.reason ?? "no reason given")}; the next request restarts it`,
    );
  };

  private say(key: string, line: string): void {
    if (this.lastLine.get(key) === line) return;
    this.lastLine.set(key, line);
    this.write(`lspmesh: ${line}`);
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.slice(0, 300);
}
