import { z } from "zod";

/**
 * Registration input per kind, shared by the admin form and the server. Passwords arrive here and
 * leave as ciphertext (lib/catalog/register.ts); nothing secret is ever sent back.
 */
const base = {
  name: z.string().trim().min(1, "Enter a name.").max(80, "Keep the name under 80 characters."),
  description: z.string().trim().max(2000, "Keep the description under 2,000 characters.").default(""),
  groupIds: z.array(z.string().min(1)).max(100).default([]),
  /**
   * Open to every signed-in user. Unticked and no group chosen = admins only (private by default,
   * issue 29): visibility is never widened by leaving something out.
   */
  openToEveryone: z.boolean().default(false),
};

const optionalSecret = z
  .string()
  .max(1000)
  .optional()
  .transform((v) => (v ? v : undefined));

export const documentsConnectionSchema = z.object({
  language: z.string().trim().min(2).max(10).default("en"),
  /** Where the collection's index lives: a SQLite file on this server, or an OpenSearch cluster. */
  engine: z.enum(["sqlite", "opensearch"]).default("sqlite"),
  /** OpenSearch only; empty = the server's SEARCH_URL. */
  searchUrl: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .refine(
      (v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v),
      "Use an http:// or https:// address, e.g. https://search.example.com:9200.",
    )
    .refine(
      (v) => v === undefined || !/^https?:\/\/[^/]*@/.test(v),
      "Leave the user and password out of the address: use their own fields (the password is stored encrypted).",
    ),
  user: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined),
  password: optionalSecret,
});

export const sqlConnectionSchema = z.discriminatedUnion("dialect", [
  z.object({ dialect: z.literal("sqlite") }),
  z.object({
    dialect: z.literal("postgres"),
    host: z.string().trim().min(1, "Enter the host."),
    port: z.coerce.number().int().min(1).max(65535).default(5432),
    database: z.string().trim().min(1, "Enter the database name."),
    user: z.string().trim().min(1, "Enter the user."),
    schema: z.string().trim().min(1).default("public"),
    ssl: z.boolean().default(false),
    password: optionalSecret,
    /**
     * The admin accepts that the role may do more than read (a superuser, or a role that can write):
     * such a connection is refused without this (lib/backends/sql/postgres/privileges.ts).
     */
    acceptPrivilegeRisk: z.boolean().default(false),
  }),
]);

export const sparqlConnectionSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("embedded") }),
  z.object({
    mode: z.literal("remote"),
    endpoint: z
      .url("Enter the endpoint URL, e.g. https://example.org/sparql")
      .refine((u) => /^https?:\/\//.test(u), "Use an http:// or https:// URL."),
    defaultGraph: z
      .string()
      .trim()
      .optional()
      .transform((v) => v || undefined),
    user: z
      .string()
      .trim()
      .optional()
      .transform((v) => v || undefined),
    password: optionalSecret,
  }),
]);

export const cypherConnectionSchema = z.object({
  uri: z
    .string()
    .trim()
    .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\/.+/, "Use a bolt:// or neo4j:// URI."),
  user: z.string().trim().min(1, "Enter the user."),
  database: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined),
  password: optionalSecret,
});

export const registerKbSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("DOCUMENTS"), ...base, connection: documentsConnectionSchema }),
  z.object({ kind: z.literal("SQL"), ...base, connection: sqlConnectionSchema }),
  z.object({ kind: z.literal("SPARQL"), ...base, connection: sparqlConnectionSchema }),
  z.object({ kind: z.literal("CYPHER"), ...base, connection: cypherConnectionSchema }),
]);
export type RegisterKbInput = z.input<typeof registerKbSchema>;
export type RegisterKb = z.output<typeof registerKbSchema>;

export const testConnectionSchema = registerKbSchema;

export const privilegeRiskSchema = z.object({ id: z.string().min(1), accept: z.boolean() });

export const updateKbSchema = z.object({
  id: z.string().min(1),
  name: base.name,
  description: base.description,
  groupIds: base.groupIds,
  openToEveryone: base.openToEveryone,
});

/** Which kinds need uploaded files at registration. */
export function needsUpload(input: RegisterKb): "documents" | "sqlite" | "rdf" | null {
  if (input.kind === "DOCUMENTS") return "documents";
  if (input.kind === "SQL" && input.connection.dialect === "sqlite") return "sqlite";
  if (input.kind === "SPARQL" && input.connection.mode === "embedded") return "rdf";
  return null;
}

/** Moving a collection from this server to an OpenSearch cluster (the admin's form on the KB page). */
export const moveToOpenSearchSchema = z.object({
  id: z.string().min(1),
  searchUrl: documentsConnectionSchema.shape.searchUrl,
  user: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined),
  password: optionalSecret,
});
export type MoveToOpenSearchInput = z.input<typeof moveToOpenSearchSchema>;
