import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";

describe("parseEnv", () => {
  it("applies the defaults listed in .env.example", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ PORT: 3000, DATA_DIR: ".data", SEED_DEMO: true, LOG_LEVEL: "info", NODE_ENV: "development" });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATABASE_URL: "", PORT: "" }).DATABASE_URL).toBeUndefined();
  });

  it("names every invalid variable and how to fix it", () => {
    let error: unknown;
    try {
      parseEnv({ PORT: "eighty", DATABASE_URL: "mysql://x", MOSAIC_ENCRYPTION_KEY: "short", SEED_DEMO: "maybe" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as EnvError).message;
    expect(message).toContain("PORT");
    expect(message).toContain("DATABASE_URL: must be a postgres:// or postgresql:// connection URL");
    expect(message).toContain("MOSAIC_ENCRYPTION_KEY");
    expect(message).toContain("SEED_DEMO");
    expect(message).toContain(".env.example");
  });

  it("accepts a hex or base64 32-byte encryption key", () => {
    expect(() => parseEnv({ MOSAIC_ENCRYPTION_KEY: "a".repeat(64) })).not.toThrow();
    expect(() => parseEnv({ MOSAIC_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") })).not.toThrow();
  });

  it("lists every schema variable in .env.example", async () => {
    const { readFileSync } = await import("node:fs");
    const example = readFileSync(".env.example", "utf8");
    for (const key of [
      "NODE_ENV",
      "PORT",
      "DATABASE_URL",
      "DATA_DIR",
      "NEXTAUTH_URL",
      "NEXTAUTH_SECRET",
      "MOSAIC_ENCRYPTION_KEY",
      "SEED_DEMO",
      "LOG_LEVEL",
      "DATASETS_DIR",
      "NEO4J_URI",
      "NEO4J_USER",
      "NEO4J_PASSWORD",
      "NEO4J_DATABASE",
      "TRUST_PROXY",
      "HTTP_MAX_BODY_BYTES",
      "UPLOAD_MAX_BYTES",
      "RUNS_MAX_CONCURRENT",
    ]) {
      expect(example).toMatch(new RegExp(`^${key}=`, "m"));
    }
  });
});
