// One vitest configuration for every workspace: unit tests beside the code, integration tests in test/.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Language servers are heavy; files run one at a time on a 2-core machine.
    fileParallelism: false,
  },
});
