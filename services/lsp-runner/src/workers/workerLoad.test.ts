import { expect, test } from "vitest";
import { NO_LOAD, parseWorkerLoad } from "./workerLoad.js";

test("a well-formed report is kept as it is", () => {
  const report = {
    sessions: 2,
    servers: [
      { language: "typescript", state: "ready", restarts: 1 },
      { language: "python", state: "indexing", restarts: 0 },
    ],
    answers: { hit: 5, shared: 1, miss: 7 },
  };
  expect(parseWorkerLoad(report)).toEqual(report);
});

test("anything malformed counts as nothing: a worker's report is not trusted", () => {
  expect(parseWorkerLoad(undefined)).toEqual(NO_LOAD);
  expect(parseWorkerLoad("load")).toEqual(NO_LOAD);
  // The load of workers that predate servers and answers.
  expect(parseWorkerLoad({ sessions: 3 })).toEqual({ ...NO_LOAD, sessions: 3 });
  expect(
    parseWorkerLoad({
      sessions: -1,
      servers: [
        { language: "typescript", state: "exploded", restarts: 1 },
        { language: 7, state: "ready", restarts: 1 },
        null,
        { language: "go", state: "failed", restarts: Number.POSITIVE_INFINITY },
      ],
      answers: { hit: "many", shared: 2.5, miss: -4 },
    }),
  ).toEqual({
    sessions: 0,
    servers: [{ language: "go", state: "failed", restarts: 0 }],
    answers: { hit: 0, shared: 2, miss: 0 },
  });
});

test("a report lists at most 1 000 servers", () => {
  const servers = Array.from({ length: 5_000 }, () => ({ language: "typescript", state: "ready", restarts: 0 }));
  expect(parseWorkerLoad({ sessions: 1, servers }).servers).toHaveLength(1_000);
});
