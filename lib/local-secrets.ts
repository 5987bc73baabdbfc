import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { decodeKey, type Env } from "./env";

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

let cached: AppSecrets | undefined;
export function getSecrets(env: Env): AppSecrets {
  cached ??= resolveSecrets(env);
  return cached;
}
