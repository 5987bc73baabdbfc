import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { constants, deflateRawSync, deflateSync } from "node:zlib";

/**
 * Files built to hurt a parser (issue 31): deep nesting that makes tree builders quadratic or
 * recursive code overflow, compressed streams that expand a thousandfold, records without end, and
 * SQLite files whose tables run code when read. Generated, so the repository holds no binary fixture;
 * the attack corpus (attack-corpus.ts) and the parsers' tests build them from here.
 */

/** `<div>` nested `depth` deep around one word: 2.2 MB at 200,000 (case 10 of issue 31). */
export function deepHtml(depth: number, tag = "div"): Buffer {
  return Buffer.from(`<html><body>${`<${tag}>`.repeat(depth)}deep${`</${tag}>`.repeat(depth)}</body></html>`);
}

/** A table in a cell of a table, `depth` deep. */
export function deepHtmlTables(depth: number): Buffer {
  return Buffer.from(`<html><body>${"<table><tr><td>".repeat(depth)}cell${"</td></tr></table>".repeat(depth)}</body></html>`);
}

/**
 * A Markdown list whose every item opens a deeper one (two more spaces each line): 1 MB at 1,000
 * levels, 64 MB at 8,000 (case 12).
 */
export function deepMarkdownList(levels: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < levels; i++) lines.push(`${"  ".repeat(i)}- item ${i}`);
  return Buffer.from(lines.join("\n"));
}

/** Block quotes nested on one line (`> > > …`) and list markers on one line (`- - - …`). */
export function deepMarkdownMarkers(depth: number): Buffer {
  return Buffer.from(`${"> ".repeat(depth)}quoted\n\n${"- ".repeat(depth)}listed\n`);
}

/** `[[[…]]]` `depth` deep inside a record. */
export function deepJson(depth: number): Buffer {
  return Buffer.from(`{"title": "deep", "rows": [{"v": ${"[".repeat(depth)}1${"]".repeat(depth)}}]}`);
}

/** One CSV record whose single quoted field runs for `bytes` characters. */
export function hugeCsvRow(bytes: number): Buffer {
  return Buffer.from(`name,notes\nAda,"${"x".repeat(bytes)}"\n`);
}

/** A CSV header row of `columns` columns. */
export function wideCsv(columns: number): Buffer {
  const header = Array.from({ length: columns }, (_, i) => `c${i}`).join(",");
  return Buffer.from(`${header}\n${Array.from({ length: columns }, () => "1").join(",")}\n`);
}

/** A PDF whose objects are given as text or bytes (streams), with a correct cross-reference table. */
function pdf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n", "latin1")];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = length;
    const body = objects[id]!;
    const chunk = Buffer.concat([
      Buffer.from(`${id} 0 obj\n`, "latin1"),
      typeof body === "string" ? Buffer.from(body, "latin1") : body,
      Buffer.from("\nendobj\n", "latin1"),
    ]);
    parts.push(chunk);
    length += chunk.length;
  }
  let tail = `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) tail += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail, "latin1"));
  return Buffer.concat(parts);
}

function flateStream(packed: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`, "latin1"),
    packed,
    Buffer.from("\nendstream", "latin1"),
  ]);
}

/** `pages` pages that all draw one compressed content stream (objects 1–4: catalog, pages, font, stream). */
function pagesSharingOneStream(pages: number, content: Buffer, packed: Buffer = deflateSync(content, { level: 9 })): Buffer {
  const objects: (string | Buffer)[] = [];
  const pageIds = Array.from({ length: pages }, (_, i) => 5 + i);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  objects[4] = flateStream(packed);
  for (const id of pageIds)
    objects[id] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>";
  return pdf(objects);
}

/**
 * Case 13: `pages` pages sharing one content stream that draws `chars` characters of text (60 pages and
 * 4 M characters fit in about 14 KB).
 */
export function pdfSharedTextStream(pages: number, chars: number): Buffer {
  const line = "(The quarterly figures were reviewed and approved by the board) Tj T*\n";
  const perLine = 62;
  const content = `BT\n/F1 12 Tf\n14 TL\n72 720 Td\n${line.repeat(Math.ceil(chars / perLine))}ET`;
  return pagesSharingOneStream(pages, Buffer.from(content, "latin1"));
}

/** A zip bomb in a PDF: pages whose one content stream inflates to `bytes` of operators that draw nothing. */
export function pdfZipBomb(bytes: number, pages = 1): Buffer {
  const chunk = Buffer.from("q Q ".repeat(256 * 1024), "latin1");
  return pagesSharingOneStream(pages, chunk, repeatedZlib(chunk, Math.max(1, Math.round(bytes / chunk.length))));
}

const ADLER_BASE = 65521;

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % ADLER_BASE;
    b = (b + a) % ADLER_BASE;
  }
  return b * 65536 + a;
}

/** zlib's adler32_combine: the checksum of one + two from theirs and two's length. */
function adlerCombine(one: number, two: number, twoLength: number): number {
  const rem = twoLength % ADLER_BASE;
  let sum1 = one % 65536;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (two % 65536) + ADLER_BASE - 1;
  sum2 += Math.floor(one / 65536) + Math.floor(two / 65536) + ADLER_BASE - rem;
  sum1 %= ADLER_BASE;
  sum1 %= ADLER_BASE;
  sum2 %= ADLER_BASE;
  return sum2 * 65536 + sum1;
}

/**
 * A zlib stream of `chunk` `times` over without compressing it that many times: deflate blocks ended by
 * a sync flush are byte-aligned and refer to nothing before them, so one compressed chunk repeats.
 */
function repeatedZlib(chunk: Buffer, times: number): Buffer {
  const block = deflateRawSync(chunk, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const one = adler32(chunk);
  let sum = one;
  for (let i = 1; i < times; i++) sum = adlerCombine(sum, one, chunk.length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(sum >>> 0);
  // 0x78 0xda: zlib header, best compression; 0x03 0x00: the final, empty fixed-Huffman block.
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: times }, () => block), Buffer.from([0x03, 0x00]), trailer]);
}

/** A PDF that says it has `pages` pages, each with one short line. */
export function pdfManyPages(pages: number): Buffer {
  return pagesSharingOneStream(pages, Buffer.from("BT /F1 12 Tf 72 720 Td (A page of the long report.) Tj ET", "latin1"));
}

/** Billion laughs in RDF/XML: 10 entities deep, each ten of the one below. */
export function rdfXmlBillionLaughs(levels = 12): Buffer {
  const ents = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= levels; i++) ents.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? "" : i - 1};`.repeat(10)}">`);
  return Buffer.from(
    `<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [${ents.join("\n")}]>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://x/">` +
      `<rdf:Description rdf:about="http://x/a"><ex:p>&lol${levels};</ex:p></rdf:Description></rdf:RDF>`,
  );
}

/** RDF/XML whose resources nest `depth` deep (property → Description → property …). */
export function rdfXmlDeep(depth: number): Buffer {
  const open = '<ex:p><rdf:Description rdf:about="http://x/n">'.repeat(depth);
  const close = "</rdf:Description></ex:p>".repeat(depth);
  return Buffer.from(
    `<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://x/">` +
      `<rdf:Description rdf:about="http://x/a">${open}${close}</rdf:Description></rdf:RDF>`,
  );
}

/** Turtle collections nested `depth` deep: `( ( ( … ) ) )`. */
export function turtleDeepCollections(depth: number): Buffer {
  return Buffer.from(`<http://x/a> <http://x/p> ${"( ".repeat(depth)}"x"${" )".repeat(depth)} .`);
}

/** A SQLite database file made from `sql`, as bytes to upload; `unsafe` runs it with the schema writable. */
export function sqliteFile(sql: string, unsafe?: string): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-hostile-"));
  try {
    const file = path.join(dir, "x.sqlite");
    const db = new Database(file);
    db.exec(sql);
    if (unsafe) {
      db.unsafeMode(true);
      db.pragma("writable_schema = ON");
      db.exec(unsafe);
    }
    db.close();
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A view that counts without end (a recursive CTE with no stop). */
const ENDLESS_VIEW =
  "CREATE VIEW v AS WITH RECURSIVE r(id, body) AS (SELECT 1, 'x' UNION ALL SELECT id + 1, 'x' FROM r) SELECT id, body FROM r;";

/**
 * Case 11: an FTS5 table whose content is the endless view: counting or previewing it runs the view.
 * 24 KB; reading its rows in the server's process froze the app.
 */
export function sqliteFts5OverEndlessView(): Buffer {
  return sqliteFile(
    `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO t VALUES (1, 'hello');
     ${ENDLESS_VIEW}
     CREATE VIRTUAL TABLE notes USING fts5(body, content='v', content_rowid='id');`,
  );
}

/** The same with FTS4's external content. */
export function sqliteFts4OverEndlessView(): Buffer {
  return sqliteFile(
    `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO t VALUES (1, 'hello');
     ${ENDLESS_VIEW}
     CREATE VIRTUAL TABLE notes USING fts4(content='v', body);`,
  );
}

/** Views each joining the one below with itself: preparing the top one expands 2^depth times. */
export function sqliteExponentialViews(depth: number): Buffer {
  const views = ["CREATE VIEW v0 AS SELECT a FROM t;"];
  for (let i = 1; i <= depth; i++) views.push(`CREATE VIEW v${i} AS SELECT x.a AS a FROM v${i - 1} x, v${i - 1} y;`);
  return sqliteFile(`CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x'), ('y'); ${views.join(" ")}`);
}

/**
 * Tables of other modules and broken objects: an R*Tree, an fts5vocab table, a dbstat table, a view of
 * a table that is gone, a trigger, and a virtual table of a module this SQLite does not have.
 */
export function sqliteOtherModules(): Buffer {
  return sqliteFile(
    `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'Ada'), (2, 'Grace');
     CREATE VIRTUAL TABLE boxes USING rtree(id, minx, maxx);
     INSERT INTO boxes VALUES (1, 0, 1);
     CREATE VIRTUAL TABLE docs USING fts5(body); INSERT INTO docs VALUES ('hello world');
     CREATE VIRTUAL TABLE words USING fts5vocab(docs, 'row');
     CREATE VIRTUAL TABLE pages USING dbstat;
     CREATE TABLE gone (a TEXT); CREATE VIEW orphan AS SELECT a FROM gone; DROP TABLE gone;
     CREATE TABLE audit (at TEXT);
     CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO audit VALUES (datetime('now')); END;`,
    // Written into the schema directly: this build has no csv module, so the table cannot be created.
    `INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES ('table', 'passwd', 'passwd', 0, 'CREATE VIRTUAL TABLE passwd USING csv(filename=''/etc/passwd'')');`,
  );
}
