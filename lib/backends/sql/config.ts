import { z } from "zod";

/**
 * Connection settings of a relational KB. A SQLite file is uploaded into the KB's storage folder (a
 * relative `file` is resolved there); a PostgreSQL database is reached over the network with a
 * read-only role, and only the tables of one schema are described and linked.
 */
export const sqlConfigSchema = z.discriminatedUnion("dialect", [
  z.object({
    dialect: z.literal("sqlite"),
    file: z.string().trim().min(1, "Name the SQLite database file."),
  }),
  z.object({
    dialect: z.literal("postgres"),
    host: z.string().trim().min(1, "Enter the host."),
    port: z.coerce.number().int().min(1).max(65535).default(5432),
    database: z.string().trim().min(1, "Enter the database name."),
    user: z.string().trim().min(1, "Enter the user."),
    schema: z.string().trim().min(1).default("public"),
    ssl: z.boolean().default(false),
  }),
]);
export type SqlConfig = z.infer<typeof sqlConfigSchema>;
export type SqliteConfig = Extract<SqlConfig, { dialect: "sqlite" }>;
export type PostgresConfig = Extract<SqlConfig, { dialect: "postgres" }>;

export const sqlSecretsSchema = z.object({ password: z.string().optional() });
export type SqlSecrets = z.infer<typeof sqlSecretsSchema>;
