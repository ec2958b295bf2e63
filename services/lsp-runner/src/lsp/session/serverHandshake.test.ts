import { describe, expect, it } from "vitest";
import { readableVersion } from "./serverHandshake.js";

describe("readableVersion", () => {
  it("reads gopls's build info: its version and the Go it was built with", () => {
    // As Debian 12's gopls answers initialize.
    const debian =
      '{"GoVersion":"go1.19.5","Path":"golang.org/x/tools/gopls","Main":{"Path":"","Version":"","Sum":"","Replace":null},"Deps":null,"Settings":[{"Key":"-compiler","Value":"gc"}],"Version":"master"}';
    expect(readableVersion(debian)).toBe("master (go1.19.5)");
    expect(readableVersion('{"GoVersion":"go1.22.2","Main":{"Version":"v0.16.1"}}')).toBe("v0.16.1 (go1.22.2)");
    expect(readableVersion('{"GoVersion":"go1.22.2"}')).toBe("go1.22.2");
  });

  it("keeps any other version as given, JSON-looking or not", () => {
    expect(readableVersion("5.3.0 (TypeScript 5.9.3)")).toBe("5.3.0 (TypeScript 5.9.3)");
    expect(readableVersion("{not json")).toBe("{not json");
    expect(readableVersion("{}")).toBe("{}");
  });
});
