// A steady stream of calls (an agent's tool calls during a rollout), timed one by one, and what
// it saw: failed calls, and cold answers — calls that waited for a language server to start.

export interface CallSample {
  /** ms since the stream started. */
  at: number;
  ms: number;
  ok: boolean;
  error?: string;
}

export interface CallStream {
  /** Samples so far. */
  readonly samples: readonly CallSample[];
  /** ms since the stream started. */
  now(): number;
  /** Stops starting calls and waits for those under way. Idempotent. */
  stop(): Promise<CallSample[]>;
}

/**
 * Runs `call` on `concurrency` lanes (default 2), each pausing `pauseMs` between calls (default 0:
 * back to back; a pause keeps the stream under a tenant's rate limit), until stopped. A call
 * resolving to anything but true, or throwing, is a failed one (its text kept in `error`).
 */
export function startCallStream(
  call: () => Promise<boolean | string>,
  options: { concurrency?: number; pauseMs?: number } = {},
): CallStream {
  const { concurrency = 2, pauseMs = 0 } = options;
  const started = performance.now();
  const now = () => performance.now() - started;
  const samples: CallSample[] = [];
  let stopping = false;
  const lane = async () => {
    while (!stopping) {
      const at = now();
      try {
        const result = await call();
        const ok = result === true;
        samples.push({ at, ms: now() - at, ok, ...(ok ? {} : { error: String(result).slice(0, 300) }) });
      } catch (error) {
        samples.push({ at, ms: now() - at, ok: false, error: String(error).slice(0, 300) });
      }
      if (pauseMs > 0 && !stopping) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const lanes = Array.from({ length: concurrency }, lane);
  let stopped: Promise<CallSample[]> | undefined;
  return {
    samples,
    now,
    stop() {
      stopping = true;
      stopped ??= Promise.all(lanes).then(() => samples);
      return stopped;
    },
  };
}

export interface StreamSummary {
  calls: number;
  failed: number;
  /** Calls slower than the cold threshold after `from`. */
  cold: number;
  coldThresholdMs: number;
  /** Median and slowest call after `from`, ms. */
  medianMs: number;
  maxMs: number;
  /** Median of the calls before `from` (the steady state), ms. */
  steadyMedianMs: number;
  /** First failures' texts. */
  errors: string[];
  /** Failures by error code (the text's leading `CODE:`, else "other"). */
  failures: Record<string, number>;
}

/**
 * What the calls started from `from` until `until` (ms since the stream started; default: the
 * end) saw; the calls before `from` are the steady state. A call is cold when it took longer than
 * `coldThresholdMs` (default: 10 × the steady-state median, at least 1 000 ms — a language server
 * starting and loading the project takes seconds, a warm answer tens of ms).
 */
export function summarizeStream(
  samples: readonly CallSample[],
  from: number,
  options: { until?: number; coldThresholdMs?: number } = {},
): StreamSummary {
  const { until = Number.POSITIVE_INFINITY, coldThresholdMs } = options;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const steady = samples.filter((sample) => sample.at < from && sample.ok).map((sample) => sample.ms);
  const after = samples.filter((sample) => sample.at >= from && sample.at < until);
  const steadyMedianMs = median(steady);
  const threshold = coldThresholdMs ?? Math.max(1_000, 10 * steadyMedianMs);
  const failed = after.filter((sample) => !sample.ok);
  return {
    calls: after.length,
    failed: failed.length,
    cold: after.filter((sample) => sample.ok && sample.ms > threshold).length,
    coldThresholdMs: Math.round(threshold),
    medianMs: Math.round(median(after.map((sample) => sample.ms))),
    maxMs: Math.round(Math.max(0, ...after.map((sample) => sample.ms))),
    steadyMedianMs: Math.round(steadyMedianMs),
    errors: failed.slice(0, 3).map((sample) => sample.error ?? ""),
    failures: Object.fromEntries(
      [...new Set(failed.map(codeOf))].map((code) => [code, failed.filter((s) => codeOf(s) === code).length]),
    ),
  };
}

/** A failed call's error code: its text's leading `CODE:` (gateway errors), else "other". */
function codeOf(sample: CallSample): string {
  return /^([A-Z][A-Z_]+):/.exec(sample.error ?? "")?.[1] ?? "other";
}
