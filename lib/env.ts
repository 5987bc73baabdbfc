import { z } from "zod";
import { modelsEnvShape } from "./models-env";
import { parseTrustProxy, type TrustedProxies } from "./net/ip";

/**
 * Every environment variable Mosaic reads, validated once at start (instrumentation.ts and each
 * command-line script call loadEnv()). `.env.example` lists the same variables with their defaults.
 */
const booleanFromString = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");

const LLM_STAGE_KEYS = ["UNDERSTAND", "SELECT", "FORMULATE", "SELECT_EVIDENCE", "ANSWER", "CRITIQUE"] as const;

/**
 * The LLM endpoint (issue 5): any OpenAI-compatible server. These are defaults; an admin's values on
 * the Settings page override them. Unset LLM_BASE_URL or LLM_MODEL: every stage runs classically.
 */
function llmEnvShape() {
  const perStageModels = Object.fromEntries(LLM_STAGE_KEYS.map((k) => [`LLM_MODEL_${k}`, z.string().min(1).optional()])) as Record<
    `LLM_MODEL_${(typeof LLM_STAGE_KEYS)[number]}`,
    z.ZodOptional<z.ZodString>
  >;
  return {
    LLM_BASE_URL: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://api.openai.com/v1 or http://localhost:11434/v1" })
      .optional(),
    LLM_API_KEY: z.string().optional(),
    LLM_MODEL: z.string().min(1).optional(),
    ...perStageModels,
    /** Comma-separated stages that use the LLM (understand, select, formulate, select-evidence, answer, critique); unset = all. */
    LLM_STAGES: z
      .string()
      .regex(/^\s*(?:all|none|[a-z-]+(?:\s*,\s*[a-z-]+)*)\s*$/, "must be all, none, or a comma-separated list such as understand,answer")
      .optional(),
    LLM_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(20_000),
    LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(6).default(2),
    LLM_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(64).max(32_768).default(2_048),
    /** Prompt budget for the catalog in source selection; larger catalogs are pre-filtered classically. */
    LLM_CONTEXT_TOKENS: z.coerce.number().int().min(1_000).max(1_000_000).default(12_000),
    /** auto: JSON-schema structured outputs, falling back to JSON mode and then to prompted JSON when the endpoint refuses them. */
    LLM_STRUCTURED_OUTPUTS: z.enum(["auto", "json_schema", "json_object", "prompt"]).default("auto"),
    /** JSON {"model": [input, output]} in USD per million tokens, added to (and overriding) the built-in price table. */
    LLM_PRICES: z
      .string()
      .refine((v) => {
        try {
          const parsed: unknown = JSON.parse(v);
          return !!parsed && typeof parsed === "object" && !Array.isArray(parsed);
        } catch {
          return false;
        }
      }, 'must be JSON such as {"my-model": [0.5, 1.5]} (USD per million input and output tokens)')
      .optional(),
  };
}

/**
 * Bounds on every query a knowledge base runs (issue 16): how large and how deeply nested a query text
 * may be before it is parsed, how long its safety check may take, how many bytes one value and one
 * result may hold, and how much memory an engine process (SQLite queries, the embedded RDF store) may use.
 */
function queryLimitsEnvShape() {
  return {
    QUERY_MAX_CHARS: z.coerce.number().int().min(1_000).max(100_000).default(20_000),
    QUERY_MAX_NESTING: z.coerce.number().int().min(8).max(1_000).default(64),
    QUERY_CHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
    RESULT_MAX_VALUE_BYTES: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(16 * 1024 * 1024)
      .default(64 * 1024),
    RESULT_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(256 * 1024 * 1024)
      .default(16 * 1024 * 1024),
    QUERY_ENGINE_MEMORY_MB: z.coerce.number().int().min(64).max(16_384).default(512),
  };
}

/**
 * Requests (issue 31): body limits of route handlers, the proxies whose X-Forwarded-For may be read,
 * and how many questions one person (or API key) may have running at once.
 */
function httpEnvShape() {
  return {
    /**
     * Proxies in front of Mosaic (addresses, CIDR ranges, or loopback / private / linklocal), comma-separated.
     * Unset: X-Forwarded-For is never read, and the address a request came from is the socket's.
     */
    TRUST_PROXY: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        const parsed = parseTrustProxy(v);
        if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.problem });
      })
      .transform((v): TrustedProxies => {
        const parsed = parseTrustProxy(v);
        return parsed.ok ? parsed.proxies : { ranges: [] };
      }),
    /** The largest JSON (or other non-upload) body a route handler reads. */
    HTTP_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(16 * 1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /** The largest upload request (registering a knowledge base, adding documents), all files together. */
    UPLOAD_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .max(4 * 1024 * 1024 * 1024)
      .default(200_000_000),
    /** Questions one person (or API key) may have running at once; admins can change it on Settings. */
    RUNS_MAX_CONCURRENT: z.coerce.number().int().min(1).max(100).default(3),
  };
}

/**
 * Single sign-on through OpenID Connect (issue 29; lib/auth/oidc.ts). Set OIDC_ISSUER, OIDC_CLIENT_ID and
 * OIDC_CLIENT_SECRET together to show "Sign in with <OIDC_NAME>"; roles and groups come from the named
 * claims of the ID token, mapped as docs/SSO.md describes.
 */
function oidcEnvShape() {
  const mapping = (example: string) =>
    z
      .string()
      .regex(/^\s*[^=,]+=[^=,]+(\s*,\s*[^=,]+=[^=,]+)*\s*$/, `must be comma-separated claim=value pairs such as ${example}`)
      .optional();
  return {
    OIDC_ISSUER: z
      .url({ protocol: /^https?$/, error: "must be the identity provider's issuer URL, such as https://login.example.com/realms/acme" })
      .optional(),
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    /** The provider's name on the sign-in button: "Sign in with <name>". */
    OIDC_NAME: z.string().min(1).max(60).default("single sign-on"),
    OIDC_SCOPES: z.string().min(1).default("openid email profile"),
    /** The ID-token claim holding role names (a string or a list); dotted paths reach nested claims (realm_access.roles). */
    OIDC_ROLES_CLAIM: z.string().min(1).default("roles"),
    /** The ID-token claim holding group names (a string or a list). */
    OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
    /** Claim value → Mosaic role (ADMIN, ANALYST or USER). Unset: admin, analyst and user map to themselves. */
    OIDC_ROLE_MAP: mapping("mosaic-admins=ADMIN,data-team=ANALYST").refine(
      (v) => !v || v.split(",").every((pair) => /^(ADMIN|ANALYST|USER)$/i.test(pair.split("=")[1].trim())),
      "each role must be ADMIN, ANALYST or USER",
    ),
    /** Claim value → Mosaic group name. Unset: a claim value names the Mosaic group of that name (case-insensitive). */
    OIDC_GROUP_MAP: mapping("hr-staff=HR,finance=Finance"),
    /** Hide the email-and-password form: people sign in only through the identity provider. */
    OIDC_ONLY: booleanFromString.default(false),
  };
}

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** Unset: embedded PGlite under DATA_DIR. Set: a PostgreSQL server. */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// connection URL")
      .optional(),
    DATA_DIR: z.string().min(1).default(".data"),
    /**
     * Where uploaded files that must be kept live (SQLite databases, RDF files, document collections kept
     * on this server), under <STORAGE_DIR>/kbs. Unset: DATA_DIR. Several instances on one DATABASE_URL
     * must share it (a network mount); collections on OpenSearch keep nothing there.
     */
    STORAGE_DIR: z.string().min(1).optional(),
    /**
     * How long a background job may go without a heartbeat before another instance takes it over (its
     * instance is presumed dead). Heartbeats come at a sixth of it.
     */
    JOB_LEASE_MS: z.coerce.number().int().min(3_000).max(3_600_000).default(60_000),
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
    NEO4J_URI: z
      .string()
      .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\//, "must be a bolt:// or neo4j:// URI")
      .optional(),
    NEO4J_USER: z.string().default("neo4j"),
    NEO4J_PASSWORD: z.string().optional(),
    NEO4J_DATABASE: z.string().optional(),
    /** OpenSearch cluster for document collections registered on that engine (their own URL, if set, wins). */
    SEARCH_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://localhost:9200" }).optional(),
    ...llmEnvShape(),
    ...modelsEnvShape(),
    ...queryLimitsEnvShape(),
    ...httpEnvShape(),
    ...oidcEnvShape(),
  })
  .superRefine((env, ctx) => {
    const set = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET].filter(Boolean).length;
    if (set > 0 && set < 3) {
      for (const k of ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const)
        if (!env[k])
          ctx.addIssue({
            code: "custom",
            path: [k],
            message: "must be set together with the other OIDC_ variables (issuer, client id and secret)",
          });
    }
    if (env.OIDC_ONLY && set < 3)
      ctx.addIssue({
        code: "custom",
        path: ["OIDC_ONLY"],
        message: "needs single sign-on configured (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET): otherwise nobody could sign in",
      });
  });

export type Env = z.infer<typeof envSchema>;

/** The names of every variable the app reads (deployment examples are checked against them). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

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
  return parsePartialEnv(envSchema, source);
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

/** Some of the variables, for code that runs outside the app's start-up validation. Same rules as parseEnv; empty strings count as unset. */
function parsePartialEnv<S extends z.ZodRawShape>(
  schema: z.ZodObject<S>,
  source: Record<string, string | undefined>,
): z.infer<z.ZodObject<S>> {
  const cleaned = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, source[k] === "" ? undefined : source[k]]));
  const result = schema.safeParse(cleaned);
  if (!result.success) throw new EnvError(result.error.issues.map((i) => `${i.path.join(".") || "env"}: ${i.message}`));
  return result.data;
}

const llmEnvSchema = z.object(llmEnvShape());
export type LlmEnv = z.infer<typeof llmEnvSchema>;

/** Only the LLM_* variables, for the pipeline in tests and scripts. */
export function parseLlmEnv(source: Record<string, string | undefined>): LlmEnv {
  return parsePartialEnv(llmEnvSchema, source);
}

const queryLimitsEnvSchema = z.object(queryLimitsEnvShape());
export type QueryLimitsEnv = z.infer<typeof queryLimitsEnvSchema>;

const httpEnvSchema = z.object(httpEnvShape());
export type HttpEnv = z.infer<typeof httpEnvSchema>;

/** Only the request variables, for Mosaic's HTTP server (scripts/server.ts) before the app is loaded. */
export function parseHttpEnv(source: Record<string, string | undefined>): HttpEnv {
  return parsePartialEnv(httpEnvSchema, source);
}

/** Only the query limits, for the backends (used by the app, scripts and tests alike). */
export function parseQueryLimitsEnv(source: Record<string, string | undefined>): QueryLimitsEnv {
  return parsePartialEnv(queryLimitsEnvSchema, source);
}
