import { describe, expect, test } from "vitest";
import {
  choiceSetting,
  credentialSetting,
  hostPortSetting,
  logLevelSetting,
  metricsListenSetting,
} from "./serviceSettings.js";
import { SettingsError } from "./settings.js";

class ReaderError extends Error {}

describe("service settings", () => {
  test("a choice is one of the list, or the error lists them", () => {
    expect(choiceSetting({}, "LSPMESH_X", ["a", "b"], "a")).toBe("a");
    expect(choiceSetting({ LSPMESH_X: " b " }, "LSPMESH_X", ["a", "b"], "a")).toBe("b");
    expect(() => choiceSetting({ LSPMESH_X: "c" }, "LSPMESH_X", ["a", "b"], "a")).toThrow(
      new SettingsError("invalid LSPMESH_X 'c': use a, b"),
    );
    expect(logLevelSetting({})).toBe("info");
    expect(() => logLevelSetting({ LSPMESH_LOG_LEVEL: "loud" })).toThrow(/LSPMESH_LOG_LEVEL 'loud'/);
  });

  test("addresses are host:port; the metrics listener is a flag or its variable", () => {
    expect(hostPortSetting(":9464", "metrics")).toBe(":9464");
    expect(() => hostPortSetting("nowhere", "listen")).toThrow(
      new SettingsError("invalid listen address 'nowhere': use host:port"),
    );
    expect(metricsListenSetting(undefined, {})).toBeUndefined();
    expect(metricsListenSetting("0.0.0.0:1", { LSPMESH_METRICS_LISTEN: "x:2" })).toBe("0.0.0.0:1");
    expect(() => metricsListenSetting(undefined, { LSPMESH_METRICS_LISTEN: "x" })).toThrow(/metrics address/);
  });

  test("a credential reader's own error becomes a SettingsError; others pass through", () => {
    const env = { LSPMESH_SECRET: " s ", LSPMESH_BLANK: " " };
    expect(credentialSetting(env, (read) => [read("LSPMESH_SECRET"), read("LSPMESH_BLANK")], ReaderError)).toEqual([
      "s",
      undefined,
    ]);
    const failing = (error: Error) => () =>
      credentialSetting(
        env,
        () => {
          throw error;
        },
        ReaderError,
      );
    expect(failing(new ReaderError("unreadable"))).toThrow(new SettingsError("unreadable"));
    expect(failing(new TypeError("bug"))).toThrow(TypeError);
  });
});
