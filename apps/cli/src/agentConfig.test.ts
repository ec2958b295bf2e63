import { expect, test } from "vitest";
import { httpConfigs, stdioConfigs } from "./agentConfig.js";

const launch = {
  command: "/opt/node22/bin/node",
  args: ["/home/me/lspmesh/apps/cli/bin/lspmesh.js", "mcp", "/home/me/my project"],
};

test("stdio configurations carry absolute paths, quoted for the shell where needed", () => {
  const lines = stdioConfigs(launch);
  expect(lines[0]).toBe(
    "  Claude Code:     claude mcp add lspmesh -- /opt/node22/bin/node /home/me/lspmesh/apps/cli/bin/lspmesh.js mcp '/home/me/my project'",
  );
  const desktop = JSON.parse(lines[1]!.slice(lines[1]!.indexOf("{")));
  expect(desktop).toEqual({ mcpServers: { lspmesh: launch } });
  expect(JSON.parse(lines[2]!.slice(lines[2]!.indexOf("{")))).toEqual({
    servers: { lspmesh: { type: "stdio", ...launch } },
  });
});

test("HTTP configurations point at the served URL; Claude Desktop gets the stdio command", () => {
  const lines = httpConfigs("http://127.0.0.1:7420/mcp", launch);
  expect(lines[0]).toBe("  Claude Code:     claude mcp add --transport http lspmesh http://127.0.0.1:7420/mcp");
  expect(JSON.parse(lines[2]!.slice(lines[2]!.indexOf("{")))).toEqual({
    servers: { lspmesh: { type: "http", url: "http://127.0.0.1:7420/mcp" } },
  });
  expect(lines.at(-1)).toContain('"command":"/opt/node22/bin/node"');
});
