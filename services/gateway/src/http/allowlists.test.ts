import { expect, test } from "vitest";
import { allowlistsFor } from "./allowlists.js";

test("loopback accepts only localhost Host names, and browsers only from the exact origins configured", () => {
  const lists = allowlistsFor("127.0.0.1", {
    hosts: ["evil.example.com"],
    origins: ["evil.example.com", "http://localhost:5173/", "ftp://localhost"],
  });
  expect(lists.hosts).toContain("localhost");
  expect(lists.hosts).not.toContain("evil.example.com");
  expect(lists).toMatchObject({ origins: ["http://localhost:5173"], exactOrigins: true });
  expect(allowlistsFor("localhost", {}).origins).toEqual([]);
});

test("elsewhere the configured lists apply; no origin list refuses browsers", () => {
  expect(allowlistsFor("0.0.0.0", { hosts: ["gw.example.com"] })).toEqual({
    hosts: ["gw.example.com"],
    origins: [],
    exactOrigins: false,
  });
  expect(allowlistsFor("0.0.0.0", {}).hosts).toBeUndefined();
});
