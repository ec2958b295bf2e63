// The Runner service called from its own process: an in-process client whose calls are counted,
// so that closing the runner lets them finish (as grpc-js tryShutdown does for network calls).

import { type CallContext, createInProcessClient, type ServiceClient, type ServiceImplementation } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";

type RunnerMethods = typeof Runner.method;

export class InProcessCalls {
  readonly client: ServiceClient<RunnerMethods>;
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    implementation: ServiceImplementation<RunnerMethods>,
    onUnexpectedError: (method: string, error: unknown, context: CallContext) => void,
  ) {
    const counted = Object.fromEntries(
      Object.entries(implementation).map(([name, handle]) => [
        name,
        (request: unknown, context: CallContext) => {
          const call = (handle as (request: unknown, context: CallContext) => Promise<unknown>)(request, context);
          this.running.add(call);
          const forget = () => this.running.delete(call);
          call.then(forget, forget);
          return call;
        },
      ]),
    ) as ServiceImplementation<RunnerMethods>;
    this.client = createInProcessClient(Runner, counted, onUnexpectedError);
  }

  /** Refuses new calls (UNAVAILABLE) and waits for those under way, at most `graceMs` ms. */
  async drain(graceMs: number): Promise<void> {
    this.client.close();
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
