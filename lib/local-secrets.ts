import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { decodeKey, type Env, EnvError } from "./env";

const secretsFileSchema = z.object({
  nextAuthSecret: z.string().min(32),
  encryptionKey: z.string().refine((v) => decodeKey(v) !== null),
});

export interface AppSecrets {
  nextAuthSecret: string;
  encryptionKey: Buffer;
  /** True when at least one secret came from DATA_DIR/secrets.json rather than the environment. */
  generated: boolean;
}

/**
 * Secrets from the environment when set; otherwise generated once into DATA_DIR/secrets.json (mode 0600),
 * so that a fresh clone runs with two commands and a restart keeps sessions and encrypted data readable.
 *
 * With DATABASE_URL (a PostgreSQL server, which several app instances and the command-line tools may
 * share) both must come from the environment: a key generated into one machine's DATA_DIR would leave
 * every other instance unable to read the sessions it signed and the connection secrets it encrypted.
 * The key is not kept in the database either: a copy of the database must not carry the key that opens it.
 */
export function resolveSecrets(env: Env): AppSecrets {
  if (env.NEXTAUTH_SECRET && env.MOSAIC_ENCRYPTION_KEY) {
    return {
      nextAuthSecret: env.NEXTAUTH_SECRET,
      encryptionKey: decodeKey(env.MOSAIC_ENCRYPTION_KEY)!,
      generated: false,
    };
  }
  const file = path.resolve(env.DATA_DIR, "secrets.json");
  if (env.DATABASE_URL) throw sharedDatabaseSecretsError(env, file);
  let stored: z.infer<typeof secretsFileSchema>;
  if (existsSync(file)) {
    const parsed = secretsFileSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) {
      throw new Error(
        `${file} is damaged. Restore it from a backup, or set NEXTAUTH_SECRET and MOSAIC_ENCRYPTION_KEY ` +
          "(encrypted connection secrets stored with the old key cannot be read without it).",
      );
    }
    stored = parsed.data;
  } else {
    mkdirSync(path.dirname(file), { recursive: true });
    stored = {
      nextAuthSecret: randomBytes(32).toString("base64url"),
      encryptionKey: randomBytes(32).toString("hex"),
    };
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600, flag: "wx" });
  }
  return {
    nextAuthSecret: env.NEXTAUTH_SECRET ?? stored.nextAuthSecret,
    encryptionKey: decodeKey(env.MOSAIC_ENCRYPTION_KEY ?? stored.encryptionKey)!,
    generated: true,
  };
}

function sharedDatabaseSecretsError(env: Env, file: string): EnvError {
  const missing = [env.NEXTAUTH_SECRET ? null : "NEXTAUTH_SECRET", env.MOSAIC_ENCRYPTION_KEY ? null : "MOSAIC_ENCRYPTION_KEY"].filter(
    (k): k is string => !!k,
  );
  const names = missing.join(" and ");
  const fix = existsSync(file)
    ? `This server generated its keys into ${file} earlier: copy its nextAuthSecret into NEXTAUTH_SECRET and its encryptionKey into MOSAIC_ENCRYPTION_KEY, and give every instance the same values (the stored connection passwords stay readable).`
    : "Generate them once (for example with: openssl rand -hex 32) and give every instance and command-line tool the same values.";
  return new EnvError([
    `${names}: required when DATABASE_URL is set, so that every instance signs sessions and encrypts connection secrets with the same keys. ${fix}`,
  ]);
}

let cached: AppSecrets | undefined;
export function getSecrets(env: Env): AppSecrets {
  cached ??= resolveSecrets(env);
  return cached;
}
