import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";
import { CapabilityRegistrations } from "./capabilityRegistrations.js";

const uri = (path: string) => pathToFileURL(path).href;
const event = (path: string, type: 1 | 2 | 3) => ({ uri: uri(path), type });

test("plain and relative watchers select the events a server asked for, by kind", () => {
  const registrations = new CapabilityRegistrations();
  expect(registrations.watchesFiles).toBe(false);
  registrations.register({
    registrations: [
      {
        id: "w1",
        method: "workspace/didChangeWatchedFiles",
        registerOptions: {
          watchers: [
            { globPattern: "**/*.py" },
            { globPattern: { baseUri: uri("/w/src"), pattern: "**/*.ts" }, kind: 2 },
            { globPattern: { baseUri: { uri: uri("/w"), name: "w" }, pattern: "tsconfig.json" } },
          ],
        },
      },
    ],
  });
  expect(registrations.watchesFiles).toBe(true);
  expect(registrations.has("workspace/didChangeWatchedFiles")).toBe(true);
  const events = [
    event("/w/a.py", 1),
    event("/w/src/x/a.ts", 2),
    event("/w/src/x/a.ts", 3), // relative watcher only wants changes
    event("/w/lib/a.ts", 2), // outside its base
    event("/w/tsconfig.json", 3),
    event("/w/sub/tsconfig.json", 2), // pattern is relative to the base, not **
  ];
  expect(registrations.wanted(events)).toEqual([events[0], events[1], events[4]]);
});

test("unregistering removes watchers and methods; pull diagnostics registration is visible", () => {
  const registrations = new CapabilityRegistrations();
  registrations.register({
    registrations: [
      { id: "d", method: "textDocument/diagnostic", registerOptions: { identifier: "pyright" } },
      { id: "w", method: "workspace/didChangeWatchedFiles", registerOptions: { watchers: [{ globPattern: "**/*" }] } },
    ],
  });
  expect(registrations.has("textDocument/diagnostic")).toBe(true);
  expect(registrations.optionsOf<{ identifier: string }>("textDocument/diagnostic")?.identifier).toBe("pyright");
  registrations.unregister({ unregisterations: [{ id: "w", method: "workspace/didChangeWatchedFiles" }] });
  expect(registrations.watchesFiles).toBe(false);
  expect(registrations.wanted([event("/w/a.ts", 2)])).toEqual([]);
  registrations.unregister({ unregisterations: [{ id: "d", method: "textDocument/diagnostic" }] });
  expect(registrations.has("textDocument/diagnostic")).toBe(false);
});
