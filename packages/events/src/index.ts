export * from "./diagnosticsConsumer.js";
export * from "./fileEvents.js";
export * from "./natsAuth.js";
export * from "./natsAuthorization.js";
export * from "./natsConnection.js";
export * from "./payloads.js";
export * from "./subjects.js";
