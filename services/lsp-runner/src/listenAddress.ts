// host:port as the runner's listen settings give them (--listen, --metrics-listen).

/** ["host", "port"]; a bare host listens on port 0 (a free one). */
export function splitHostPort(listen: string): [string, string] {
  const index = listen.lastIndexOf(":");
  if (index < 0) return [listen, "0"];
  return [listen.slice(0, index), listen.slice(index + 1)];
}
