// A router over a fixed list of runner addresses (single machine, or a static deployment).

import { StaticRunnerDirectory } from "./runnerDirectory.js";
import { HrwRunnerRouter } from "./runnerRouter.js";

export class StaticRunnerRouter extends HrwRunnerRouter {
  constructor(addresses: string | readonly string[]) {
    super(new StaticRunnerDirectory(typeof addresses === "string" ? [addresses] : addresses));
  }
}
