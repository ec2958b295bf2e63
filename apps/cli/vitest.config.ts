// Two integration files at a time: they spawn `lspmesh` processes and wait on them and on the
// language servers those start; every file works in temporary folders and on free ports of its own.
import { sharedConfig } from "../../vitest.shared.js";

export default sharedConfig(2);
