// Two integration files at a time: they wait on language servers more than they compute.
import { sharedConfig } from "../../vitest.shared.js";

export default sharedConfig(2);
