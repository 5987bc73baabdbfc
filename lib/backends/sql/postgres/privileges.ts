import type { PoolClient } from "pg";

/**
 * Least privilege for PostgreSQL knowledge bases: what the connecting role may do beyond reading. The
 * query checks and the READ ONLY transaction are walls; the role is the ground they stand on. A role
 * that is a superuser, can write any table, create objects, or read and write the server's files turns
 * any hole in those walls into data loss or a server takeover, so such a role is refused unless an
 * admin accepts the risk for the knowledge base (catalog/register.ts, the knowledge base page).
 */

export interface PrivilegeRisk {
  /** Stable key, for tests and the UI. */
  kind:
    | "superuser"
    | "writes"
    | "creates"
    | "server-files"
    | "server-programs"
    | "roles"
    | "replication"
    | "bypass-rls"
    | "all-data"
    | "other-schemas"
    | "server-functions";
  /** What it means, in words an admin acts on. */
  text: string;
}

/** Predefined roles that reach outside the database or past its permissions, with what they allow. */
const RISKY_MEMBERSHIPS: Record<string, PrivilegeRisk> = {
  pg_read_server_files: { kind: "server-files", text: "is a member of pg_read_server_files (it can read any file the server can)" },
  pg_write_server_files: { kind: "server-files", text: "is a member of pg_write_server_files (it can write files on the server)" },
  pg_execute_server_program: {
    kind: "server-programs",
    text: "is a member of pg_execute_server_program (it can run programs on the server)",
  },
  pg_write_all_data: { kind: "writes", text: "is a member of pg_write_all_data (it can change every table)" },
  pg_read_all_data: {
    kind: "all-data",
    text: "is a member of pg_read_all_data (it can read every table of every schema, not only this knowledge base's)",
  },
  pg_signal_backend: { kind: "roles", text: "is a member of pg_signal_backend (it can cancel or end other sessions)" },
};

const ROLE_SQL = `
SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls,
       has_database_privilege(current_database(), 'CREATE') AS create_schemas,
       ARRAY(SELECT m.rolname::text FROM pg_catalog.pg_roles m
             WHERE m.rolname = ANY($1::text[]) AND pg_catalog.pg_has_role(r.oid, m.oid, 'USAGE') ORDER BY 1) AS memberships
FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`;

/** Tables, views and sequences outside the system schemas the role may change (any schema of the database). */
const WRITABLE_SQL = `
SELECT n.nspname AS schema, c.relname AS name
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
  AND (CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(c.oid, 'UPDATE')
            ELSE has_table_privilege(c.oid, 'INSERT') OR has_table_privilege(c.oid, 'UPDATE')
                 OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE')
                 OR has_any_column_privilege(c.oid, 'INSERT') OR has_any_column_privilege(c.oid, 'UPDATE') END)
ORDER BY 1, 2 LIMIT 6`;

const CREATE_SQL = `
SELECT nspname AS schema FROM pg_catalog.pg_namespace
WHERE has_schema_privilege(oid, 'CREATE') AND nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_%'
ORDER BY 1 LIMIT 6`;

/**
 * Tables and views outside the registered schema (and the system schemas) that the role can read. Queries
 * are held to the registered schema by the plan check (plan-check.ts); a role that can read more makes any
 * hole in that check a leak, so it is a risk an admin must accept, as a writing role is.
 */
const OTHER_SCHEMAS_SQL = `
SELECT n.nspname AS schema, c.relname AS name
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname <> $1
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND has_schema_privilege(n.oid, 'USAGE')
  AND (has_table_privilege(c.oid, 'SELECT') OR has_any_column_privilege(c.oid, 'SELECT'))
ORDER BY 1, 2 LIMIT 6`;

/**
 * Functions that reach outside the database (server files, large-object import and export, other servers):
 * none is executable by every role by default, so a role that may run one was given it, and that is a risk
 * an admin must accept.
 */
export const SERVER_FUNCTIONS = [
  "pg_read_file",
  "pg_read_binary_file",
  "pg_ls_dir",
  "pg_stat_file",
  "pg_ls_logdir",
  "pg_ls_waldir",
  "pg_ls_tmpdir",
  "pg_ls_archive_statusdir",
  "lo_import",
  "lo_export",
  "dblink",
  "dblink_exec",
  "dblink_connect",
  "dblink_connect_u",
  "dblink_open",
  "dblink_send_query",
  "pg_file_write",
  "pg_file_rename",
  "pg_file_unlink",
  "pg_logdir_ls",
];

/**
 * Functions that act on the server's sessions and settings or run SQL text of their own. PostgreSQL lets
 * every role execute these unless an administrator revokes them, so they are reported, not refused: the
 * query checks refuse every call to them, and a database administrator can take them away with
 * REVOKE EXECUTE … FROM PUBLIC.
 */
export const SESSION_FUNCTIONS = [
  "pg_sleep",
  "pg_sleep_for",
  "pg_sleep_until",
  "pg_terminate_backend",
  "pg_cancel_backend",
  "pg_advisory_lock",
  "pg_advisory_lock_shared",
  "pg_try_advisory_lock",
  "pg_try_advisory_lock_shared",
  "pg_advisory_xact_lock",
  "current_setting",
  "set_config",
  "pg_notify",
  "ts_stat",
  "ts_rewrite",
  "query_to_xml",
  "query_to_xmlschema",
  "query_to_xml_and_xmlschema",
  "cursor_to_xml",
  "table_to_xml",
  "schema_to_xml",
  "database_to_xml",
  "pg_reload_conf",
  "pg_rotate_logfile",
];

const EXECUTABLE_SQL = `
SELECT p.proname::text AS name FROM pg_catalog.pg_proc p
WHERE p.proname = ANY($1::text[]) AND has_function_privilege(p.oid, 'EXECUTE')
GROUP BY p.proname ORDER BY 1`;

interface RoleRow {
  rolname: string;
  rolsuper: boolean;
  rolcreaterole: boolean;
  rolcreatedb: boolean;
  rolreplication: boolean;
  rolbypassrls: boolean;
  create_schemas: boolean;
  memberships: string[];
}

function listed(names: string[], more: boolean): string {
  return `${names.join(", ")}${more ? ", …" : ""}`;
}

export interface PrivilegeReport {
  role: string;
  /** What makes queries refused until an admin accepts it; empty for a role that may only read its schema. */
  risks: PrivilegeRisk[];
  /** What is said without refusing: functions every role may execute by default. */
  notes: string[];
}

/**
 * Reads the role's privileges (inside the caller's read-only transaction) with respect to the knowledge
 * base's schema; no risks is a role that may only read that schema.
 */
export async function inspectPrivileges(client: PoolClient, schema: string): Promise<PrivilegeReport> {
  const role = (await client.query<RoleRow>(ROLE_SQL, [Object.keys(RISKY_MEMBERSHIPS)])).rows[0];
  if (!role) return { role: "?", risks: [], notes: [] };
  const risks: PrivilegeRisk[] = [];
  if (role.rolsuper)
    risks.push({
      kind: "superuser",
      text: "is a superuser (it can read server files such as pg_authid's password hashes, change any data, and run programs on the server)",
    });
  const writable = (await client.query<{ schema: string; name: string }>(WRITABLE_SQL)).rows;
  if (!role.rolsuper && writable.length > 0) {
    risks.push({
      kind: "writes",
      text: `can change data (${listed(
        writable.slice(0, 5).map((w) => `${w.schema}.${w.name}`),
        writable.length > 5,
      )})`,
    });
  }
  const creatable = (await client.query<{ schema: string }>(CREATE_SQL)).rows;
  if (!role.rolsuper && (creatable.length > 0 || role.create_schemas)) {
    const where = [
      ...(role.create_schemas ? ["new schemas in the database"] : []),
      ...creatable.slice(0, 5).map((c) => `schema ${c.schema}`),
    ];
    risks.push({ kind: "creates", text: `can create objects (${listed(where, creatable.length > 5)})` });
  }
  if (!role.rolsuper) {
    for (const m of role.memberships) if (RISKY_MEMBERSHIPS[m]) risks.push(RISKY_MEMBERSHIPS[m]);
    if (role.rolcreaterole) risks.push({ kind: "roles", text: "can create and change roles (CREATEROLE)" });
    if (role.rolcreatedb) risks.push({ kind: "creates", text: "can create databases (CREATEDB)" });
    if (role.rolreplication)
      risks.push({ kind: "replication", text: "has the REPLICATION attribute (it can stream every change of the server)" });
    if (role.rolbypassrls) risks.push({ kind: "bypass-rls", text: "bypasses row-level security (BYPASSRLS)" });
    const outside = (await client.query<{ schema: string; name: string }>(OTHER_SCHEMAS_SQL, [schema])).rows;
    if (outside.length > 0) {
      risks.push({
        kind: "other-schemas",
        text: `can read tables outside the schema "${schema}" (${listed(
          outside.slice(0, 5).map((o) => `${o.schema}.${o.name}`),
          outside.length > 5,
        )})`,
      });
    }
  }
  const executable = new Set(
    (await client.query<{ name: string }>(EXECUTABLE_SQL, [[...SERVER_FUNCTIONS, ...SESSION_FUNCTIONS]])).rows.map((r) => r.name),
  );
  const server = SERVER_FUNCTIONS.filter((f) => executable.has(f));
  if (!role.rolsuper && server.length > 0) {
    risks.push({
      kind: "server-functions",
      text: `may execute functions that reach outside the database (${server.map((f) => `${f}()`).join(", ")})`,
    });
  }
  const session = SESSION_FUNCTIONS.filter((f) => executable.has(f));
  const notes =
    // A superuser's risk already says it may do all of this.
    !role.rolsuper && session.length > 0
      ? [
          `The PostgreSQL user "${role.rolname}" may execute ${session.map((f) => `${f}()`).join(", ")}, as every role may unless a database administrator revokes them (REVOKE EXECUTE ON FUNCTION … FROM PUBLIC); Mosaic refuses every call to them in queries.`,
        ]
      : [];
  return { role: role.rolname, risks, notes };
}

/** The sentence the health check and registration show when the role may do more than read. */
export function describeRisks(role: string, risks: PrivilegeRisk[]): string {
  return `The PostgreSQL user "${role}" ${risks.map((r) => r.text).join("; it ")}.`;
}
