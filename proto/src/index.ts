// The gateway ↔ runner contract: generated messages and service descriptor, and the shared constants.
export * from "./contract.js";
export * from "./gen/lspmesh/v1/runner_pb.js";
