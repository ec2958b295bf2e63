// `lspmesh gateway`: the gateway service. Its flags and LSPMESH_* variables are the gateway's own
// (services/gateway/src/config.ts); this command only hands them over.
import { UsageError } from "../usage.js";

export async function runGatewayCommand(args: string[]): Promise<void> {
  const { USAGE } = await import("@lspmesh/gateway/config");
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return;
  }
  const { gatewayConfig } = await import("@lspmesh/gateway/config");
  try {
    gatewayConfig(args, process.env);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { main } = await import("@lspmesh/gateway/main");
  await main(args, process.env);
}
