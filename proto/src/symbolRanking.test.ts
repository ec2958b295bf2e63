import { describe, expect, test } from "vitest";
import { kindRank, matchClass, type RankedSymbol, rankSymbols } from "./symbolRanking.js";

const symbol = (name: string, kind = "function", workspace = "web", file = "a.ts"): RankedSymbol => ({
  name,
  kind,
  workspace,
  location: { file, line: 1, column: 1 },
});

describe("search_symbols ranking", () => {
  test.each([
    ["Greeter", "Greeter", 0],
    ["greeter", "Greeter", 1],
    ["GreeterFactory", "Greeter", 2],
    ["greeterFactory", "Greeter", 3],
    ["PoliteGreeter", "Greeter", 4],
    ["GetTheRest", "gtr", 5],
    ["Config", "greeter", 6],
  ])("%s for query %s is class %i", (name, query, expected) => {
    expect(matchClass(name, query)).toBe(expected);
  });

  test("a name qualified by its receiver (gopls: Command.ExecuteC) matches as its own last part", () => {
    expect(matchClass("Command.ExecuteC", "ExecuteC")).toBe(0);
    expect(matchClass("Command.ExecuteContext", "ExecuteC")).toBe(2);
    expect(matchClass("Command.ExecuteC", "Command.ExecuteC")).toBe(0);
    const ranked = rankSymbols(
      [symbol("executeCommand"), symbol("ExecuteContextC"), symbol("Command.ExecuteC", "method")],
      "ExecuteC",
    ).map((s) => s.name);
    expect(ranked[0]).toBe("Command.ExecuteC");
  });

  test("exact > prefix > substring > fuzzy, whatever the kind", () => {
    const ranked = rankSymbols(
      [
        symbol("GetUserName", "variable"),
        symbol("getUser", "variable"),
        symbol("UserCache"),
        symbol("user", "variable"),
        symbol("User", "class"),
      ],
      "user",
    ).map((s) => s.name);
    expect(ranked).toEqual(["user", "User", "UserCache", "getUser", "GetUserName"]);
  });

  test("within one match class, kinds rank types before functions before members before variables", () => {
    const ranked = rankSymbols(
      [symbol("parse", "variable"), symbol("parse", "method"), symbol("parse", "class"), symbol("parse", "function")],
      "parse",
    ).map((s) => s.kind);
    expect(ranked).toEqual(["class", "function", "method", "variable"]);
    expect(kindRank("unknown_kind")).toBeGreaterThan(kindRank("variable"));
  });

  test("ties break by name length, name, workspace and file: stable across gateways", () => {
    const ranked = rankSymbols(
      [
        symbol("Parser", "class", "web", "b.ts"),
        symbol("Parser", "class", "api", "z.ts"),
        symbol("Parser", "class", "web", "a.ts"),
      ],
      "Parser",
    ).map((s) => `${s.workspace}/${s.location.file}`);
    expect(ranked).toEqual(["api/z.ts", "web/a.ts", "web/b.ts"]);
  });
});
