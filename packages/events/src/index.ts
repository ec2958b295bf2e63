export * from "./fileEvents.js";
export * from "./natsConnection.js";
export * from "./payloads.js";
export * from "./subjects.js";
