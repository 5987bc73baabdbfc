import pino from "pino";

/** One structured logger for the server and scripts. Level from LOG_LEVEL (validated in lib/env.ts). */
export const log = pino({
  level: process.env.LOG_LEVEL || "info",
  base: { app: "mosaic" },
  redact: { paths: ["*.password", "*.passwordHash", "*.apiKey", "*.secret", "*.secrets"], censor: "[redacted]" },
});
