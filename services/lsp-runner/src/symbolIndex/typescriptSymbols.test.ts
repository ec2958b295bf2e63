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

test("one entry per overload; members exported from a namespace are exported", () => {
  const text = `export function useRef(a: string): string
export function useRef(a: number): number
export function useRef(a: unknown): unknown {
  return a
}
export namespace JSX {
  export type Element = string
  type Hidden = number
}
declare namespace Deno {
  export function open(path: string): void
}
`;
  const source = new TypescriptSyntaxSource();
  try {
    const symbols = source.symbols("src/hooks.ts", text, splitLines(text));
    expect(symbols.filter((symbol) => symbol.name === "useRef").map((symbol) => symbol.line)).toEqual([1, 2, 3]);
    expect(symbols.find((symbol) => symbol.name === "Element")).toMatchObject({ container: "JSX", exported: true });
    expect(symbols.find((symbol) => symbol.name === "Hidden")).toMatchObject({ exported: false });
    expect(symbols.find((symbol) => symbol.name === "open")).toMatchObject({ container: "Deno", exported: true });
  } finally {
    source.close();
  }
});

test("a function assigned to a property is at its property's name, where position tools find it", () => {
  const text = `function Signal(this: any) {}
Signal.prototype.subscribe = function (fn: () => void) {
  return fn;
};
`;
  const source = new TypescriptSyntaxSource();
  try {
    const symbols = source.symbols("packages/core/src/index.ts", text, splitLines(text));
    // preactjs/signals: the name, column 18, not the function keyword at column 30.
    expect(symbols.find((symbol) => symbol.name === "subscribe")).toMatchObject({ line: 2, column: 18 });
  } finally {
    source.close();
  }
});
