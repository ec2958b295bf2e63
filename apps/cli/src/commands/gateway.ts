// `lspmesh gateway`: the gateway service. Its flags and LSPMESH_* variables are the gateway's own
// (gatewayConfig in @lspmesh/gateway); this command only hands them over.
import { GATEWAY_USAGE, main } from "@lspmesh/gateway";

export const HELP = GATEWAY_USAGE;

export async function runGatewayCommand(args: string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(GATEWAY_USAGE);
    return;
  }
  await main(args, process.env);
}
