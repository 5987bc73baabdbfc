import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { BackendConfigError } from "../../backends/errors";
import { RDF_TYPE, RDFS_LABEL, XSD, isSafeIri } from "../../backends/sparql/rdf-terms";

/**
 * The W3C Direct Mapping of a relational database to RDF (https://www.w3.org/TR/rdb-direct-mapping/),
 * read from a SQLite file: used to build RDF versions of SQL benchmark databases (Spider), so the same
 * question can be answered by SQL and by SPARQL.
 *
 * - each table T is a class <base/T>, each row a resource: <base/T/K1=v1;K2=v2> from its primary key,
 *   or a blank node when the table has none;
 * - every non-NULL cell is a literal triple <row> <base/T#C> "v"^^xsd:type;
 * - every foreign key whose referenced row exists is a reference triple <row> <base/T#ref-C1;C2> <row'>.
 * Beyond the standard, tables and columns get an rdfs:label (their SQL name) so descriptors read well.
 */

interface ColumnInfo {
  name: string;
  type: string;
  pk: number;
}

interface ForeignKey {
  from: string[];
  table: string;
  /** Referenced columns; empty means the referenced table's primary key. */
  to: string[];
}

/**
 * The Direct Mapping's "IRI-safe" percent-encoding: everything but RFC 3987 iunreserved characters
 * (ASCII letters, digits, - . _ ~ and non-ASCII ucschar) is %-encoded as UTF-8.
 */
export function iriSafe(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (
      /[A-Za-z0-9\-._~]/.test(ch) ||
      (cp >= 0xa0 && cp <= 0xd7ff) ||
      (cp >= 0xf900 && cp <= 0xfdcf) ||
      (cp >= 0xfdf0 && cp <= 0xffef) ||
      cp >= 0x10000
    ) {
      out += ch;
    } else {
      for (const b of Buffer.from(ch, "utf8")) out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    }
  }
  return out;
}

/** N-Triples string escaping (ECHAR): the only characters a literal may not hold as they are. */
function ntString(s: string): string {
  return `"${s.replace(/[\\"\n\r\t\b\f]/g, (c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" })[c]!)}"`;
}

function typed(lexical: string, datatype: string): string {
  return `${ntString(lexical)}^^<${XSD}${datatype}>`;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** SQLite's declared type affinity (https://www.sqlite.org/datatype3.html#determination_of_column_affinity), plus dates. */
function declaredKind(declared: string): "integer" | "double" | "decimal" | "boolean" | "date" | "datetime" | "other" {
  const t = declared.toUpperCase();
  if (t.includes("INT")) return "integer";
  if (t.includes("BOOL")) return "boolean";
  if (t.includes("DATETIME") || t.includes("TIMESTAMP")) return "datetime";
  if (t.includes("DATE")) return "date";
  if (t.includes("REAL") || t.includes("FLOA") || t.includes("DOUB")) return "double";
  if (t.includes("DEC") || t.includes("NUMERIC")) return "decimal";
  return "other";
}

/**
 * A cell as an N-Triples literal. SQLite is dynamically typed (Spider stores "1992" in INT columns and
 * 52 in TEXT ones), so the value's own type decides, refined by the declared type where they agree.
 */
function literalOf(value: unknown, declared: string): string | null {
  if (value === null || value === undefined) return null;
  const kind = declaredKind(declared);
  if (typeof value === "bigint") return typed(value.toString(), "integer");
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return typed(value > 0 ? "INF" : value < 0 ? "-INF" : "NaN", "double");
    if (kind === "double") return typed(String(value), "double");
    if (kind === "decimal") return typed(String(value), "decimal");
    if (kind === "boolean" && (value === 0 || value === 1)) return typed(value === 1 ? "true" : "false", "boolean");
    return Number.isInteger(value) ? typed(String(value), "integer") : typed(String(value), "double");
  }
  if (Buffer.isBuffer(value)) return typed(value.toString("hex").toUpperCase(), "hexBinary");
  const s = String(value);
  if (kind === "date" && /^\d{4}-\d{2}-\d{2}$/.test(s)) return typed(s, "date");
  if (kind === "datetime" && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(s)) return typed(s.replace(" ", "T"), "dateTime");
  return ntString(s);
}

/** A key value's lexical form inside a row IRI. */
function keyText(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString("hex").toUpperCase();
  return String(value);
}

export function directMappingFromSqlite(sqlitePath: string, baseIri: string): string {
  if (!existsSync(sqlitePath)) throw new BackendConfigError(`Cannot open ${sqlitePath}: file not found.`);
  const base = /[/#]$/.test(baseIri) ? baseIri : `${baseIri}/`;
  if (!isSafeIri(base)) throw new BackendConfigError(`The base IRI "${baseIri}" is not a valid IRI.`);

  const db = new Database(sqlitePath, { readonly: true, fileMustExist: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
        name: string;
      }[]
    ).map((t) => t.name);
    const byLowerName = new Map(tables.map((t) => [t.toLowerCase(), t]));
    const columnsOf = new Map<string, ColumnInfo[]>();
    for (const t of tables) columnsOf.set(t, db.pragma(`table_info(${quoteIdent(t)})`) as ColumnInfo[]);
    const pkOf = (t: string) =>
      columnsOf
        .get(t)!
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);

    const tableIri = (t: string) => `${base}${iriSafe(t)}`;
    /** A row's node: its primary-key IRI, else a blank node named by table and row position (the same
     *  scan order gives the same name when a foreign key points at it). */
    const rowNode = (t: string, row: Record<string, unknown>, rowNo: number): string => {
      const pk = pkOf(t);
      if (pk.length > 0 && pk.every((c) => row[c] !== null && row[c] !== undefined)) {
        return `<${tableIri(t)}/${pk.map((c) => `${iriSafe(c)}=${iriSafe(keyText(row[c]))}`).join(";")}>`;
      }
      return `_:t${tables.indexOf(t)}r${rowNo}`;
    };

    // Referenced rows are found by the values of the referenced columns, compared as text: Spider's
    // foreign keys often pair an INT column with a TEXT one holding the same digits.
    const keyIndexCache = new Map<string, Map<string, string>>();
    const keyIndex = (t: string, cols: string[]): Map<string, string> => {
      const cacheKey = `${t}\u0000${cols.join("\u0000")}`;
      let index = keyIndexCache.get(cacheKey);
      if (index) return index;
      index = new Map();
      let rowNo = 0;
      for (const row of db.prepare(`SELECT * FROM ${quoteIdent(t)}`).iterate() as Iterable<Record<string, unknown>>) {
        rowNo++;
        if (cols.some((c) => row[c] === null || row[c] === undefined)) continue;
        const k = JSON.stringify(cols.map((c) => keyText(row[c])));
        if (!index.has(k)) index.set(k, rowNode(t, row, rowNo));
      }
      keyIndexCache.set(cacheKey, index);
      return index;
    };

    const lines: string[] = [];
    for (const t of tables) {
      const columns = columnsOf.get(t)!;
      const colNames = new Set(columns.map((c) => c.name.toLowerCase()));
      const fks = foreignKeys(db, t).flatMap((fk) => {
        const target = byLowerName.get(fk.table.toLowerCase());
        if (!target || !fk.from.every((c) => colNames.has(c.toLowerCase()))) return [];
        const targetCols = new Map(columnsOf.get(target)!.map((c) => [c.name.toLowerCase(), c.name]));
        const to = (fk.to.length > 0 ? fk.to : pkOf(target)).map((c) => targetCols.get(c.toLowerCase()));
        if (to.length !== fk.from.length || to.some((c) => !c)) return [];
        const from = fk.from.map((c) => columns.find((col) => col.name.toLowerCase() === c.toLowerCase())!.name);
        return [{ from, table: target, to: to as string[] }];
      });

      const cls = `<${tableIri(t)}>`;
      lines.push(`${cls} <${RDFS_LABEL}> ${ntString(t)} .`);
      for (const c of columns) lines.push(`<${tableIri(t)}#${iriSafe(c.name)}> <${RDFS_LABEL}> ${ntString(c.name)} .`);
      for (const fk of fks) {
        lines.push(
          `<${tableIri(t)}#ref-${fk.from.map(iriSafe).join(";")}> <${RDFS_LABEL}> ${ntString(`${fk.from.join(", ")} (${fk.table})`)} .`,
        );
      }

      let rowNo = 0;
      for (const row of db.prepare(`SELECT * FROM ${quoteIdent(t)}`).iterate() as Iterable<Record<string, unknown>>) {
        rowNo++;
        const subject = rowNode(t, row, rowNo);
        lines.push(`${subject} <${RDF_TYPE}> ${cls} .`);
        for (const c of columns) {
          const lit = literalOf(row[c.name], c.type);
          if (lit) lines.push(`${subject} <${tableIri(t)}#${iriSafe(c.name)}> ${lit} .`);
        }
        for (const fk of fks) {
          if (fk.from.some((c) => row[c] === null || row[c] === undefined)) continue;
          const target = keyIndex(fk.table, fk.to).get(JSON.stringify(fk.from.map((c) => keyText(row[c]))));
          if (target) lines.push(`${subject} <${tableIri(t)}#ref-${fk.from.map(iriSafe).join(";")}> ${target} .`);
        }
      }
    }
    return `${lines.join("\n")}\n`;
  } finally {
    db.close();
  }
}

function foreignKeys(db: Database.Database, table: string): ForeignKey[] {
  const rows = db.pragma(`foreign_key_list(${quoteIdent(table)})`) as {
    id: number;
    seq: number;
    table: string;
    from: string;
    to: string | null;
  }[];
  const byId = new Map<number, ForeignKey>();
  for (const r of [...rows].sort((a, b) => a.id - b.id || a.seq - b.seq)) {
    const fk = byId.get(r.id) ?? { from: [], table: r.table, to: [] };
    fk.from.push(r.from);
    if (r.to) fk.to.push(r.to);
    byId.set(r.id, fk);
  }
  return [...byId.values()];
}
