import { describe, expect, test } from "vitest";
import { tracingSettings } from "./tracingSettings.js";

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" };

describe("tracingSettings", () => {
  test("off unless an OTLP endpoint is set, and then quietly (nothing to warn about)", () => {
    expect(tracingSettings({}, "lspmesh-gateway")).toEqual({ off: undefined });
    expect(tracingSettings({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_EXPORTER: "otlp" }, "s")).toEqual({ off: undefined });
    expect(tracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: "none" }, "s")).toEqual({ off: undefined });
    expect(tracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: "true" }, "s")).toEqual({ off: undefined });
  });

  test("the general endpoint gets /v1/traces; the traces endpoint is taken as it is and wins", () => {
    expect(tracingSettings(ENDPOINT, "lspmesh-runner")).toEqual({
      settings: {
        serviceName: "lspmesh-runner",
        tracesUrl: "http://collector:4318/v1/traces",
        scheduleDelayMs: 5_000,
        sampler: { parentBased: true, ratio: 1 },
      },
    });
    const traces = { ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://otel.example/custom" };
    expect(tracingSettings(traces, "s")).toMatchObject({ settings: { tracesUrl: "https://otel.example/custom" } });
  });

  test("OTEL_SERVICE_NAME, OTEL_BSP_SCHEDULE_DELAY and the samplers are honoured", () => {
    const env = {
      ...ENDPOINT,
      OTEL_SERVICE_NAME: "edge-gateway",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
    };
    expect(tracingSettings(env, "lspmesh-gateway")).toMatchObject({
      settings: { serviceName: "edge-gateway", scheduleDelayMs: 100, sampler: { parentBased: true, ratio: 0.25 } },
    });
    expect(tracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: "always_off" }, "s")).toMatchObject({
      settings: { sampler: { parentBased: false, ratio: 0 } },
    });
  });

  test("what lspmesh cannot honour leaves tracing off with a reason to log", () => {
    const reasons = [
      { OTEL_TRACES_EXPORTER: "console" },
      { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" },
      { OTEL_TRACES_SAMPLER: "jaeger_remote" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "collector:4318" },
    ].map((env) => tracingSettings({ ...ENDPOINT, ...env }, "s"));
    for (const decision of reasons) expect(decision).toEqual({ off: expect.stringMatching(/\S/) });
    expect(tracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: "otlp,console" }, "s")).toHaveProperty("settings");
  });
});
