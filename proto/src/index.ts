// The gateway ↔ runner contract: generated messages and service descriptor, the shared constants,
// and the symbol ranking order both sides apply.
export * from "./contract.js";
export * from "./gen/lspmesh/v1/runner_pb.js";
export * from "./symbolRanking.js";
