// The Helm renderer (test/deploy/helm-render, used by chart.test.ts) renders as `helm template`
// does, on a tiny chart that uses each of helm's semantics once: include, tpl, toYaml with
// nindent, required failing with its message, a null in the user's values deleting a key,
// "<no value>" removed, numbers as helm keeps them (float64), .Release/.Chart/.Capabilities/
// .Files/.Template, .helmignore, documents sorted by kind, partials and NOTES.txt never output,
// test hooks last (and left out with --skip-tests), the chart's kubeVersion checked.
import { needs } from "@lspmesh/test-kit";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { helmTemplate } from "../src/helmTemplate.js";
import { repoPath } from "../src/repo.js";

const FIXTURE = repoPath("test/deploy/test/fixtures/helm-semantics");
const render = (options: Parameters<typeof helmTemplate>[1] = {}) =>
  helmTemplate(FIXTURE, { name: "rel", namespace: "ns", ...options });

/** Go and Debian's sprig sources build the renderer; without them the suite skips (fails in CI). */
const ready = needs("helm-render", "the Helm renderer's tests");
if (!ready) test.skip("helm template semantics (the renderer's packages are missing)", () => {});

(ready ? describe : ((() => {}) as unknown as typeof describe))("helm template semantics", () => {
  const plain = render();
  const config = plain.objects.find((object) => object.kind === "ConfigMap")!;

  test("include, tpl, toYaml | nindent, the built-in objects", () => {
    expect(config.metadata).toEqual({ name: "semantics-rel", labels: { a: "1", b: "two" } });
    expect(plain.text).toContain('  labels:\n    a: "1"\n    b: two\n');
    expect(config.data).toEqual({
      tpl: "hello world",
      release: "rel/ns/Helm/true/1",
      chart: "semantics/1.2.3/4.5",
      missing: "[]",
      kube: "v1.34.0/true/false",
      file: "hello from a file",
      ignored: "[]",
      template: "semantics/templates/config.yaml",
      big: "1e+06",
      lookup: "{}",
      nested: "drop: dropped\nkeep: kept\n",
    });
  });

  test("documents sorted by kind under # Source lines, hooks last, no partial, NOTES.txt or empty file", () => {
    expect(plain.documents.map((d) => `${d.object.kind} ${d.source}`)).toEqual([
      "Namespace semantics/templates/config.yaml",
      "ConfigMap semantics/templates/config.yaml",
      "Service semantics/templates/service.yaml",
      "Pod semantics/templates/tests/hook.yaml",
    ]);
    expect(
      plain.text.startsWith("---\n# Source: semantics/templates/config.yaml\napiVersion: v1\nkind: Namespace\n"),
    ).toBe(true);
    expect(plain.text).not.toMatch(/never in helm template|_helpers|required\.yaml|empty\.yaml/);
    expect(render({ skipTests: true }).objects.map((object) => object.kind)).not.toContain("Pod");
  });

  test("values: files and objects merge into values.yaml, a null deletes the key", () => {
    const changed = render({ values: [{ nested: { drop: null, added: 1 }, labels: null, name: "mars" }] });
    expect(changed.values.nested).toEqual({ keep: "kept", added: 1 });
    expect(changed.values).not.toHaveProperty("labels");
    const map = changed.objects.find((object) => object.kind === "ConfigMap")!;
    expect(map.metadata.labels).toBeUndefined();
    expect(map.data.tpl).toBe("hello mars");
    expect(parse(map.data.nested)).toEqual({ keep: "kept", added: 1 });
  });

  test("required fails with its message and the template's position; the kubeVersion is checked", () => {
    expect(() => render({ values: [{ needed: { check: true } }] })).toThrow(
      "Error: execution error at (semantics/templates/required.yaml:3:10): needed.value is required",
    );
    expect(render({ values: [{ needed: { check: true, value: "here" } }] }).objects).toContainEqual({ value: "here" });
    expect(() => render({ kubeVersion: "v1.19.0" })).toThrow(/chart requires kubeVersion: >=1.20.0-0/);
  });
});
