import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM envelope for connection secrets at rest: "v1.<iv>.<tag>.<ciphertext>" (base64url parts).
 * The version prefix leaves room for key rotation.
 */
const VERSION = "v1";

export function encryptSecret(plaintext: string, key: Buffer): string {
  if (key.length !== 32) throw new Error("encryption key must be 32 bytes");
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), ct.toString("base64url")].join(".");
}

export class SecretDecryptionError extends Error {
  constructor() {
    super("A stored secret could not be decrypted: the encryption key (MOSAIC_ENCRYPTION_KEY) differs from the one it was stored with.");
    this.name = "SecretDecryptionError";
  }
}

export function decryptSecret(envelope: string, key: Buffer): string {
  const [version, iv, tag, ct] = envelope.split(".");
  if (version !== VERSION || !iv || !tag || ct === undefined) throw new SecretDecryptionError();
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretDecryptionError();
  }
}

/** Encrypts a record of secrets (password, API key...) as one JSON envelope. */
export function encryptSecrets(values: Record<string, string>, key: Buffer): string {
  return encryptSecret(JSON.stringify(values), key);
}

export function decryptSecrets(envelope: string, key: Buffer): Record<string, string> {
  return JSON.parse(decryptSecret(envelope, key)) as Record<string, string>;
}
