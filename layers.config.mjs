/**
 * Mosaic's layers, top to bottom. A module may import from its own layer and the layers below it,
 * never from one above; import cycles are forbidden at every level (type-only imports included).
 * ESLint enforces this on every lint (eslint.config.mjs: import/no-restricted-paths, import/no-cycle)
 * and tests/unit/architecture.test.ts checks the whole graph, type imports included. The README's
 * "Architecture" section explains each layer and where new code goes.
 *
 * Paths are relative to the repository root; a folder covers everything under it.
 */
export const LAYERS = [
  { name: "app", paths: ["app", "proxy.ts", "instrumentation.ts", "instrumentation-client.ts"] },
  { name: "components", paths: ["components"] },
  { name: "entry points", paths: ["lib/actions", "lib/server"] },
  {
    name: "product domains",
    paths: [
      "lib/runs",
      "lib/eval",
      "lib/guides",
      "lib/feedback",
      "lib/users",
      "lib/settings",
      "lib/auth",
      "lib/audit",
      "lib/workspace",
      "lib/demo",
      "lib/http",
      "lib/navigation.ts",
    ],
  },
  { name: "pipeline", paths: ["lib/pipeline"] },
  { name: "ingest", paths: ["lib/ingest"] },
  { name: "catalog", paths: ["lib/catalog"] },
  { name: "backends", paths: ["lib/backends"] },
  { name: "infrastructure", paths: ["lib/models", "lib/jobs", "lib/llm", "lib/db"] },
  {
    name: "core",
    paths: [
      "lib/env.ts",
      "lib/models-env.ts",
      "lib/local-secrets.ts",
      "lib/deps.ts",
      "lib/errors.ts",
      "lib/log.ts",
      "lib/random.ts",
      "lib/crypto",
      "lib/format",
      "lib/tables",
      "lib/net",
      "lib/data",
    ],
  },
];

/**
 * The imports that run against the order, each with its reason (the README lists them). `from` and
 * `to` are globs relative to the repository root.
 */
export const ALLOWED_UPWARD = [
  // None. Server actions live in lib/actions/ (entry points), so pages and components import them downwards.
];
