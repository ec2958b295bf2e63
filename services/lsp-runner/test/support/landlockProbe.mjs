// Tries what a confined tenant must not do (and what it must), and reports each outcome as JSON:
// "ok" or the error code. Sends the report over the IPC channel when there is one, else prints it.
// Argument: JSON { own, other, neighbourPid, tcpPort, abstractSocket }: its own folder, another
// tenant's, a process of the same user outside the domain, a loopback port and an abstract socket.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";

const { own, other, neighbourPid, tcpPort, abstractSocket } = JSON.parse(process.argv[2]);

function attempt(action) {
  try {
    action();
    return "ok";
  } catch (error) {
    return error.code ?? String(error);
  }
}

/** Connects and closes: "ok", or the error code. */
function connects(options) {
  return new Promise((resolve) => {
    const socket = connect(options);
    socket.setTimeout(5_000, () => socket.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
    socket.once("connect", () => {
      socket.destroy();
      resolve("ok");
    });
    socket.once("error", (error) => resolve(error.code ?? String(error)));
  });
}

/** cat's outcome as an error code: it reports "Permission denied" (EACCES) on stderr. */
function catResult({ status, stderr }) {
  if (status === 0) return "ok";
  return /Permission denied/.test(stderr) ? "EACCES" : `exit ${status}: ${stderr.trim()}`;
}

const catOther = spawnSync("/bin/cat", [join(other, "secret.txt")], { encoding: "utf8" });
const report = {
  readOwn: attempt(() => readFileSync(join(own, "file.txt"))),
  writeOwn: attempt(() => writeFileSync(join(own, "written.txt"), "x")),
  readOther: attempt(() => readFileSync(join(other, "secret.txt"))),
  listOther: attempt(() => readdirSync(other)),
  writeOther: attempt(() => writeFileSync(join(other, "planted.txt"), "x")),
  symlinkToOther: attempt(() => readFileSync(join(own, "link-to-other"))),
  neighbourEnviron: attempt(() => readFileSync(`/proc/${neighbourPid}/environ`)),
  signalNeighbour: attempt(() => process.kill(neighbourPid, 0)),
  tcpConnect: await connects({ host: "127.0.0.1", port: tcpPort }),
  abstractUnixConnect: await connects({ path: abstractSocket }),
  grandchildReadOther: catOther.error?.code ?? catResult(catOther),
};

if (process.send) process.send(report, () => process.disconnect());
else process.stdout.write(`${JSON.stringify(report)}\n`);
