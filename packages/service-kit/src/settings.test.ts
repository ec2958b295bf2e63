import { describe, expect, test } from "vitest";
import { integerSetting, listSetting, parseFlags, portSetting, SettingsError, setting } from "./settings.js";

describe("settings", () => {
  test("a flag wins over its variable; blank counts as unset", () => {
    expect(setting("a", { X: "b" }, "X")).toBe("a");
    expect(setting(undefined, { X: " b " }, "X")).toBe("b");
    expect(setting("  ", { X: "" }, "X")).toBeUndefined();
  });

  test("integers are whole and in range, or the error names the setting and the range", () => {
    expect(integerSetting(undefined, "LSPMESH_N", 5, 0, 10)).toBe(5);
    expect(integerSetting("7", "LSPMESH_N", 5, 0, 10)).toBe(7);
    expect(() => integerSetting("7.5", "LSPMESH_N", 5, 0, 10)).toThrow(
      new SettingsError("invalid LSPMESH_N '7.5': give a whole number from 0 to 10"),
    );
    expect(() => integerSetting("11", "LSPMESH_N", 5, 0, 10)).toThrow(SettingsError);
    expect(() => portSetting("70000", "--port", 7420)).toThrow(/0 to 65535/);
  });

  test("lists are trimmed and never empty", () => {
    expect(listSetting(" a, ,b ")).toEqual(["a", "b"]);
    expect(listSetting(" , ")).toBeUndefined();
  });

  test("unknown flags become a SettingsError, not a stack trace", () => {
    expect(() => parseFlags({ args: ["--nope"], options: { port: { type: "string" } } })).toThrow(SettingsError);
    expect(parseFlags({ args: ["--port", "1"], options: { port: { type: "string" } } }).values.port).toBe("1");
  });
});
