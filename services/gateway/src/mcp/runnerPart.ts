import type { GatewayError } from "../errors.js";

/** One runner's share of a fan-out: its answer or the error it failed with, named by its languages. */
export interface RunnerPart<T> {
  languages: string[];
  answer?: T;
  error?: GatewayError;
}
