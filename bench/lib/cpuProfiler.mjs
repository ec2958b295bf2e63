// Preloaded with NODE_OPTIONS="--import <this file>" (Node refuses --cpu-prof there) and
// LSPMESH_BENCH_PROFILE_DIR set: the first SIGUSR2 a process gets starts V8's CPU profiler, the
// second stops it and writes <dir>/<pid>.cpuprofile — so a benchmark profiles exactly the load it
// drives, not start-up, indexing or shutdown.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.LSPMESH_BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  let state = "off";
  process.on("SIGUSR2", () => {
    if (state === "off") {
      state = "on";
      session.connect();
      session.post("Profiler.enable");
      session.post("Profiler.setSamplingInterval", { interval: 1000 }); // µs
      session.post("Profiler.start");
    } else if (state === "on") {
      state = "done";
      session.post("Profiler.stop", (error, result) => {
        if (!error) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
        session.disconnect();
      });
    }
  });
}
