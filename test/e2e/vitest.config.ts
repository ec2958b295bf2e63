// The shared tiers, plus `install`: the CLI packed and installed globally (about a minute), run by
// `npm run test:install` (and .ci/run), not by every `npm test`.
import { defineConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

// Two integration files at a time: they wait on language servers more than they compute.
const shared = sharedConfig(2);

export default defineConfig({
  test: {
    ...shared.test,
    projects: [
      ...(shared.test?.projects ?? []),
      {
        extends: true,
        test: {
          name: "install",
          include: ["install/**/*.test.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
