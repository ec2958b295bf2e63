// A small JSON-lines logger (one object per line on stderr). Never log tokens or file contents.

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Structured fields of a log line, e.g. requestId, tool, durationMs, code. */
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createJsonLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const threshold = RANK[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const log =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}) => {
      if (RANK[level] < threshold) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Discards everything; the default when a caller embeds the gateway without a logger. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
