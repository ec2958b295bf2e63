import { describe, expect, test } from "vitest";
import { parseWarmUpList } from "./sessionWarmUp.js";

describe("parseWarmUpList", () => {
  test("reads tenant/workspace/language entries separated by commas", () => {
    expect(parseWarmUpList(" acme/web/typescript, acme/api/python ,")).toEqual([
      { tenant: "acme", workspace: "web", language: "typescript" },
      { tenant: "acme", workspace: "api", language: "python" },
    ]);
  });

  test("a malformed entry is refused with the expected shape", () => {
    expect(() => parseWarmUpList("acme/web")).toThrow("'acme/web' is not tenant/workspace/language");
  });
});
