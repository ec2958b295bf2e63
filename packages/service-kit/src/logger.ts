// The one log shape of every lspmesh process: JSON lines on stderr,
// {"time","level","service","msg",...fields}. Never log tokens or file contents.

export type LogLevel = "debug" | "info" | "warn" | "error";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** Structured fields of a log line, e.g. requestId, tool, durationMs, code. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLoggerOptions {
  /** Lines below this level are dropped (default info). */
  level?: LogLevel;
  /** `service` of every line: "gateway", "runner", "cli" (default none). */
  service?: string;
  /** Where lines go (default stderr). */
  write?: (line: string) => void;
}

export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const service = options.service ? { service: options.service } : {};
  const log =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}) => {
      if (RANK[level] < threshold) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, ...service, msg, ...fields })}\n`);
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Discards everything; the default when a caller embeds a service without a logger. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The message of any thrown value, for a log field (never a stack: lines may reach users). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
