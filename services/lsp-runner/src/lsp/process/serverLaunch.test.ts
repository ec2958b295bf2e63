import { describe, expect, test } from "vitest";
import { serverLaunch } from "./serverLaunch.js";

describe("serverLaunch", () => {
  test("runs the command through /bin/sh with its arguments passed verbatim as $@", () => {
    const launch = serverLaunch("/usr/bin/server", ["--stdio", "a b", "$HOME", "'quoted'"]);
    expect(launch.command).toBe("/bin/sh");
    expect(launch.args.slice(2)).toEqual([
      "lspmesh-language-server",
      "/usr/bin/server",
      "--stdio",
      "a b",
      "$HOME",
      "'quoted'",
    ]);
    expect(launch.args[0]).toBe("-c");
    expect(launch.watchdogFd).toBe(true);
    const script = launch.args[1]!;
    expect(script).toContain("cap -n 4096");
    expect(script).toContain("ulimit -c 0");
    expect(script.split("\n").at(-1)).toBe('exec "$@" 3<&-');
  });

  test("without the watchdog there is no fd 3; limits are configurable and must be positive integers", () => {
    const launch = serverLaunch("server", [], {
      parentWatchdog: false,
      limits: { openFiles: 256, noCoreDumps: false },
    });
    expect(launch.watchdogFd).toBe(false);
    expect(launch.args[1]).toContain("cap -n 256");
    expect(launch.args[1]).not.toContain("ulimit -c 0");
    expect(launch.args[1]!.split("\n").at(-1)).toBe('exec "$@"');
    expect(() => serverLaunch("server", [], { limits: { openFiles: 0 } })).toThrow("positive integer");
  });
});
