// Language servers get a safelist of the runner's environment, not all of it: tokens, cloud
// credentials and NATS URLs in the runner's environment must not reach workspace-facing processes.

const SAFELIST = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "USER", "SHELL"];

export function childEnvironment(additions: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of SAFELIST) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...additions };
}
