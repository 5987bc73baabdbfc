import type { RegisterKb } from "./knowledge-bases.validation";

/**
 * Splits a registration's connection settings into the stored config (non-secret, readable by the
 * browser) and the secrets (encrypted at rest, never sent back).
 */
export function splitConnection(input: RegisterKb): { config: Record<string, unknown>; secrets: Record<string, string> } {
  switch (input.kind) {
    case "DOCUMENTS": {
      const c = input.connection;
      if (c.engine !== "opensearch") return { config: { language: c.language }, secrets: {} };
      const opensearch = stripUndefined({ url: c.searchUrl, username: c.user });
      return { config: { language: c.language, engine: "opensearch", opensearch }, secrets: c.password ? { password: c.password } : {} };
    }
    case "SQL": {
      const c = input.connection;
      if (c.dialect === "sqlite") return { config: { dialect: "sqlite", file: "database.sqlite" }, secrets: {} };
      // Accepting the role's risk is recorded on the knowledge base (riskAcceptedAt), not in its settings.
      const { password, ...rest } = c;
      const config: Record<string, unknown> = { ...rest };
      delete config.acceptPrivilegeRisk;
      return { config, secrets: password ? { password } : {} };
    }
    case "SPARQL": {
      const c = input.connection;
      if (c.mode === "embedded") return { config: { mode: "embedded" }, secrets: {} };
      const { password, ...config } = c;
      return { config: stripUndefined(config), secrets: password ? { password } : {} };
    }
    case "CYPHER": {
      const { password, ...config } = input.connection;
      return { config: stripUndefined(config), secrets: password ? { password } : {} };
    }
  }
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** A one-line summary of where a KB lives, for lists (never includes secrets). */
export function connectionSummary(kind: string, config: Record<string, unknown>): string {
  switch (kind) {
    case "DOCUMENTS": {
      if (config.engine !== "opensearch") return "Document collection (SQLite FTS5 index)";
      const url = (config.opensearch as { url?: string } | undefined)?.url;
      return `Document collection in OpenSearch${url ? ` at ${new URL(url).origin}` : " (the server's SEARCH_URL)"}`;
    }
    case "SQL":
      return config.dialect === "postgres"
        ? `PostgreSQL ${config.user}@${config.host}:${config.port}/${config.database}`
        : "SQLite database (uploaded, read-only)";
    case "SPARQL":
      return config.mode === "remote" ? `SPARQL endpoint ${config.endpoint}` : "RDF graph (embedded Oxigraph store)";
    case "CYPHER":
      return `Neo4j ${config.uri}${config.database ? ` (database ${config.database})` : ""}`;
    default:
      return kind;
  }
}
