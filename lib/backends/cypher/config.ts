import { z } from "zod";

/**
 * A Neo4j knowledge base is reached over Bolt. `bolt://` talks to one server; `neo4j://` lets the driver
 * route across a cluster. The `+s` / `+ssc` variants turn on TLS (with full or self-signed trust).
 */
const BOLT_SCHEMES = ["bolt:", "bolt+s:", "bolt+ssc:", "neo4j:", "neo4j+s:", "neo4j+ssc:"];

function boltUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "Give the server's Bolt address, e.g. bolt://localhost:7687 or neo4j://db.example.com:7687.";
  }
  if (!BOLT_SCHEMES.includes(url.protocol)) {
    return `Use a bolt:// or neo4j:// address (got ${url.protocol}//…); add +s for TLS, e.g. neo4j+s://db.example.com.`;
  }
  if (!url.hostname) return "The address has no host name.";
  // A password in the URI would be stored in clear text with the config: it belongs in the secrets.
  if (url.username || url.password) return "Put the user in the user field and the password in the secrets, not in the address.";
  return null;
}

export const cypherConfigSchema = z
  .object({
    uri: z.string().superRefine((uri, ctx) => {
      const problem = boltUriProblem(uri);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    user: z.string().min(1).max(200),
    /** The database to read; the server's default (home) database when omitted. */
    database: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9.\-_]{0,62}$/, "A Neo4j database name has letters, digits, dots, dashes and underscores.")
      .optional(),
  })
  .strict();
export type CypherConfig = z.infer<typeof cypherConfigSchema>;

export const cypherSecretsSchema = z.object({ password: z.string().max(1000).optional() });
export type CypherSecrets = z.infer<typeof cypherSecretsSchema>;
