// Helpers for tests of every package: fixture workspaces, a real nats-server on a free port,
// `lspmesh serve` and whole clusters as child processes, and waiting for asynchronous state.

export * from "./callStream.js";
export * from "./cluster.js";
export * from "./crossTenantAttacks.js";
export * from "./fixtures.js";
export * from "./folderSwapper.js";
export * from "./fuzz.js";
export * from "./natsCluster.js";
export * from "./natsServer.js";
export * from "./otlpReceiver.js";
export * from "./otlpTraces.js";
export * from "./serveProcess.js";
export * from "./systemPackages.js";
export * from "./tenancy.js";
export * from "./waitFor.js";
