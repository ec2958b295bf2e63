export * from "./logger.js";
export * from "./network.js";
export * from "./settings.js";
export * from "./shutdown.js";
