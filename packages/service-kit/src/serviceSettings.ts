// Settings the gateway and the runner both read, read here once so that their names, defaults and
// messages stay the same in both (docs/operations.md and docs/gateway.md quote them).
import { LOG_LEVELS, type LogLevel } from "./logger.js";
import { type Environment, SettingsError, setting } from "./settings.js";

/** How another package's reader (gRPC or NATS credentials) asks for a variable: blank = unset. */
export type VariableReader = (name: string) => string | undefined;

/** Variable `name`, one of `choices`, else `fallback` when unset. */
export function choiceSetting<T extends string>(env: Environment, name: string, choices: readonly T[], fallback: T): T {
  const value = (setting(undefined, env, name) ?? fallback) as T;
  if (!choices.includes(value)) throw new SettingsError(`invalid ${name} '${value}': use ${choices.join(", ")}`);
  return value;
}

/** LSPMESH_LOG_LEVEL: debug, info (the default), warn or error. */
export function logLevelSetting(env: Environment): LogLevel {
  return choiceSetting(env, "LSPMESH_LOG_LEVEL", LOG_LEVELS, "info");
}

/** `address` if it is host:port (an empty host binds every interface); `what` names it in the error. */
export function hostPortSetting(address: string, what: string): string {
  if (!/^[^\s]*:\d{1,5}$/.test(address)) throw new SettingsError(`invalid ${what} address '${address}': use host:port`);
  return address;
}

/** --metrics-listen / LSPMESH_METRICS_LISTEN: host:port of a separate GET /metrics listener; unset = none. */
export function metricsListenSetting(flag: string | undefined, env: Environment): string | undefined {
  const address = setting(flag, env, "LSPMESH_METRICS_LISTEN");
  return address === undefined ? undefined : hostPortSetting(address, "metrics");
}

/**
 * What `read` (another package's credential reader) makes of the environment, its own error
 * (`errorType`) turned into a SettingsError: one line and exit code 2, like every other setting.
 */
export function credentialSetting<T>(
  env: Environment,
  read: (variable: VariableReader) => T,
  errorType: abstract new (...args: never[]) => Error,
): T {
  try {
    return read((name) => setting(undefined, env, name));
  } catch (error) {
    throw error instanceof errorType ? new SettingsError(error.message) : error;
  }
}
