export * from "./payloads.js";
export * from "./subjects.js";
