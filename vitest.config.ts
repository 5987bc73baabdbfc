import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // `server-only` throws outside React Server Components; tests call server modules directly.
  "server-only": path.resolve(import.meta.dirname, "tests/support/empty-module.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    // The default summary, then which tiers were skipped for want of a service or data, and how to run them.
    reporters: ["default", "./tests/support/skipped-tiers-reporter.ts"],
    projects: [
      // Models are off unless a test turns them on: pipeline tests pin the classical rankings; model tests pass their runtime.
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          env: { LOG_LEVEL: "silent", MODELS_ENABLED: "false" },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          env: { LOG_LEVEL: "silent", MODELS_ENABLED: "false" },
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 90_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          globalSetup: ["tests/e2e/support/global-setup.ts"],
        },
      },
    ],
  },
});
