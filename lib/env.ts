import { z } from "zod";

/**
 * Every environment variable Mosaic reads, validated once at start (instrumentation.ts and each
 * command-line script call loadEnv()). `.env.example` lists the same variables with their defaults.
 */
const booleanFromString = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Unset: embedded PGlite under DATA_DIR. Set: a PostgreSQL server. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// connection URL")
    .optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  NEXTAUTH_URL: z.url("must be an absolute URL such as http://localhost:3000").optional(),
  /** Signs session tokens. Unset: generated once and kept in DATA_DIR/secrets.json. */
  NEXTAUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** 32 bytes as 64 hex characters or base64; encrypts connection secrets at rest. Unset: generated once into DATA_DIR/secrets.json. */
  MOSAIC_ENCRYPTION_KEY: z
    .string()
    .refine((v) => decodeKey(v) !== null, "must be 32 bytes, as 64 hex characters or base64")
    .optional(),
  SEED_DEMO: booleanFromString.default(true),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DATASETS_DIR: z.string().default("../shared/datasets"),
  /** Neo4j holding the benchmark graphs (npm run catalog:load-benchmarks); unset = skip them. */
  NEO4J_URI: z.string().regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\//, "must be a bolt:// or neo4j:// URI").optional(),
  NEO4J_USER: z.string().default("neo4j"),
  NEO4J_PASSWORD: z.string().optional(),
  NEO4J_DATABASE: z.string().optional(),
});

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {
  constructor(public readonly issues: string[]) {
    super(
      `Invalid environment configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}\n` +
        "Fix these variables (see .env.example for every variable and its default) and start again.",
    );
    this.name = "EnvError";
  }
}

export function decodeKey(value: string): Buffer | null {
  const hex = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : null;
  if (hex) return hex;
  try {
    const b = Buffer.from(value, "base64");
    return b.length === 32 ? b : null;
  } catch {
    return null;
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings count as unset, as they do in most .env tooling.
  const cleaned = Object.fromEntries(
    Object.keys(envSchema.shape).map((k) => [k, source[k] === "" ? undefined : source[k]]),
  );
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    throw new EnvError(result.error.issues.map((i) => `${i.path.join(".") || "env"}: ${i.message}`));
  }
  return result.data;
}

let cached: Env | undefined;

export function loadEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests change process.env between cases. */
export function resetEnvCache(): void {
  cached = undefined;
}
