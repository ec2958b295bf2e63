// Two integration files at a time: one file keeps one core busy (importing the Kubernetes schemas,
// running kustomize and helm); each file renders into folders of its own, and the NATS checks
// start their servers on free ports.
import { sharedConfig } from "../../vitest.shared.js";

export default sharedConfig(2);
