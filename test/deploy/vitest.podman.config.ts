// The deployment test (npm run test:deploy): images are built and pods run, so hooks get minutes.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["podman/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
