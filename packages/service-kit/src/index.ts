export * from "./logger.js";
export * from "./metricsListener.js";
export * from "./network.js";
export * from "./secretFile.js";
export * from "./serviceSettings.js";
export * from "./settings.js";
export * from "./shutdown.js";
