export { runServeCommand } from "./commands/serve.js";
