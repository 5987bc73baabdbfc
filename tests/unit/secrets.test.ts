import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, decryptSecrets, encryptSecret, encryptSecrets, SecretDecryptionError } from "@/lib/crypto/secrets";
import { EnvError, parseEnv } from "@/lib/env";
import { resolveSecrets } from "@/lib/local-secrets";

describe("secret encryption", () => {
  const key = randomBytes(32);

  it("round-trips and never contains the plaintext", () => {
    const envelope = encryptSecret("s3cr3t-password", key);
    expect(envelope.startsWith("v1.")).toBe(true);
    expect(envelope).not.toContain("s3cr3t");
    expect(decryptSecret(envelope, key)).toBe("s3cr3t-password");
  });

  it("uses a fresh IV each time", () => {
    expect(encryptSecret("same", key)).not.toBe(encryptSecret("same", key));
  });

  it("refuses a wrong key or a tampered envelope with a clear error", () => {
    const envelope = encryptSecret("value", key);
    expect(() => decryptSecret(envelope, randomBytes(32))).toThrow(SecretDecryptionError);
    const parts = envelope.split(".");
    parts[3] = Buffer.from("tampered").toString("base64url");
    expect(() => decryptSecret(parts.join("."), key)).toThrow(/MOSAIC_ENCRYPTION_KEY/);
    expect(() => decryptSecret("garbage", key)).toThrow(SecretDecryptionError);
  });

  it("encrypts records of secrets", () => {
    const env = encryptSecrets({ password: "pw", apiKey: "k" }, key);
    expect(decryptSecrets(env, key)).toEqual({ password: "pw", apiKey: "k" });
  });
});

describe("local secrets", () => {
  it("are generated once into DATA_DIR/secrets.json with mode 0600 and reused", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-secrets-"));
    const env = parseEnv({ DATA_DIR: dir });
    const first = resolveSecrets(env);
    const second = resolveSecrets(env);
    expect(first.generated).toBe(true);
    expect(first.encryptionKey.length).toBe(32);
    expect(second.nextAuthSecret).toBe(first.nextAuthSecret);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    const file = path.join(dir, "secrets.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).nextAuthSecret).toBe(first.nextAuthSecret);
  });

  it("prefer the environment when both are set", () => {
    const env = parseEnv({
      DATA_DIR: "/nonexistent-never-written",
      NEXTAUTH_SECRET: "x".repeat(40),
      MOSAIC_ENCRYPTION_KEY: "ab".repeat(32),
    });
    const s = resolveSecrets(env);
    expect(s.generated).toBe(false);
    expect(s.nextAuthSecret).toBe("x".repeat(40));
    expect(s.encryptionKey.toString("hex")).toBe("ab".repeat(32));
  });

  it("must come from the environment when DATABASE_URL is set, naming what is missing and how to carry the generated keys over", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-secrets-"));
    const url = "postgresql://mosaic@db.example:5432/mosaic";
    const fresh = () => resolveSecrets(parseEnv({ DATA_DIR: dir, DATABASE_URL: url, NEXTAUTH_SECRET: "x".repeat(40) }));
    expect(fresh).toThrow(EnvError);
    expect(fresh).toThrow(/MOSAIC_ENCRYPTION_KEY: required when DATABASE_URL is set.*openssl rand -hex 32/s);
    expect(fresh).not.toThrow(/NEXTAUTH_SECRET/);
    // Nothing is generated for a shared database: another instance could not read it.
    expect(existsSync(path.join(dir, "secrets.json"))).toBe(false);

    const generated = resolveSecrets(parseEnv({ DATA_DIR: dir }));
    const before = () => resolveSecrets(parseEnv({ DATA_DIR: dir, DATABASE_URL: url }));
    expect(before).toThrow(/NEXTAUTH_SECRET and MOSAIC_ENCRYPTION_KEY: required when DATABASE_URL is set/);
    expect(before).toThrow(new RegExp(`copy its nextAuthSecret into NEXTAUTH_SECRET and its encryptionKey into MOSAIC_ENCRYPTION_KEY`));

    const shared = resolveSecrets(
      parseEnv({
        DATA_DIR: dir,
        DATABASE_URL: url,
        NEXTAUTH_SECRET: generated.nextAuthSecret,
        MOSAIC_ENCRYPTION_KEY: generated.encryptionKey.toString("hex"),
      }),
    );
    expect(shared.generated).toBe(false);
    expect(shared.encryptionKey.equals(generated.encryptionKey)).toBe(true);
  });
});
