import { expect, test } from "vitest";
import { splitLines } from "../lsp/documents/textDocument.js";
import { TypescriptSyntaxSource } from "./typescriptSymbols.js";

const TEXT = `import { helper as h } from "./helper";
export { q as renamed } from "./q";
export function compose(a: number) {
  const local = a;
  return local;
}
const hidden = 1, shown = 2;
export { shown };
export class Greeter {
  greet(): string { return "🎉 hi"; }
}
export type Id = string;
export default function () {}
`;

test("declarations with kinds, containers, export flags and code-point positions", () => {
  const source = new TypescriptSyntaxSource();
  try {
    const symbols = source.symbols("src/a.ts", TEXT, splitLines(TEXT));
    const byName = (name: string) => symbols.find((symbol) => symbol.name === name);
    expect(byName("compose")).toMatchObject({ kind: "function", exported: true, line: 3, column: 17 });
    expect(byName("local")).toMatchObject({ container: "compose", exported: false });
    expect(byName("hidden")).toMatchObject({ kind: "constant", exported: false });
    expect(byName("shown")).toMatchObject({ exported: true });
    expect(byName("greet")).toMatchObject({ kind: "method", container: "Greeter", exported: false });
    expect(byName("Id")).toMatchObject({ exported: true, snippet: "export type Id = string;" });
    expect(byName("renamed")).toMatchObject({ exported: true });
    // Imports are not declarations; anonymous items are left out as typescript-language-server does.
    expect(byName("h")).toBeUndefined();
    expect(symbols.some((symbol) => symbol.name.startsWith("<"))).toBe(false);
  } finally {
    source.close();
  }
});
