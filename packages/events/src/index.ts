export * from "./fileEvents.js";
export * from "./payloads.js";
export * from "./subjects.js";
