import * as cheerio from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { checkHtmlDepth } from "./limits";
import { mergeHeaderRows } from "./table-header";
import type { ParsedDocument, ParsedTable, TextBlock } from "./types";

/** Elements whose content is never document prose (code, chrome, embedded media). */
const DROPPED = "script, style, nav, noscript, template, svg, canvas, iframe, object, head, form, button, select";

const HEADING = /^h[1-6]$/;
/** Elements that end the running text block: their content starts a new paragraph. */
const BLOCK_ELEMENTS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "aside",
  "header",
  "footer",
  "li",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "blockquote",
  "pre",
  "figure",
  "figcaption",
  "address",
  "br",
  "hr",
  "details",
  "summary",
]);

function isElement(node: AnyNode): node is Element {
  return node.type === "tag";
}

/**
 * HTML through cheerio: scripts, styles and navigation are dropped; headings become sections; each
 * <table> becomes a table (caption from <caption>, header from <th> cells of the first row or <thead>);
 * everything else is read in document order as paragraphs.
 */
export function parseHtml(source: string, fallbackTitle: string): ParsedDocument {
  // parse5 (under cheerio) is quadratic in nesting depth: 200,000 nested <div> held a thread for 21 minutes.
  checkHtmlDepth(source);
  const $ = cheerio.load(source);
  const pageTitle = $("title").first().text().trim();
  $(DROPPED).remove();

  const blocks: TextBlock[] = [];
  const tables: ParsedTable[] = [];
  let section: string | undefined;
  let firstH1: string | undefined;
  let buffer = "";

  const flush = () => {
    if (buffer.trim()) blocks.push({ text: buffer, section });
    buffer = "";
  };

  const walk = (nodes: AnyNode[]) => {
    for (const node of nodes) {
      if (node.type === "text") {
        buffer += (node as unknown as { data: string }).data;
        continue;
      }
      if (!isElement(node)) continue;
      const name = node.name.toLowerCase();
      if (HEADING.test(name)) {
        flush();
        section = $(node).text().replace(/\s+/g, " ").trim() || section;
        if (name === "h1" && firstH1 === undefined) firstH1 = section;
        continue;
      }
      if (name === "table") {
        flush();
        const table = readTable($, node);
        if (table) tables.push({ ...table, section, beforeBlock: blocks.length });
        continue;
      }
      const block = BLOCK_ELEMENTS.has(name);
      if (block) flush();
      walk(node.children);
      if (block) flush();
    }
  };
  const body = $("body");
  walk(body.length > 0 ? body.contents().toArray() : $.root().contents().toArray());
  flush();
  return { title: pageTitle || firstH1 || fallbackTitle, blocks, tables };
}

function cellText($: cheerio.CheerioAPI, cell: Element): string {
  return $(cell).text().replace(/\s+/g, " ").trim();
}

function readTable($: cheerio.CheerioAPI, table: Element): Omit<ParsedTable, "section" | "beforeBlock"> | null {
  // Rows of this table only, not of tables nested in its cells.
  const rows = $(table)
    .find("tr")
    .toArray()
    .filter((tr) => $(tr).closest("table").get(0) === table);
  if (rows.length === 0) return null;
  const cellsOf = (tr: Element) =>
    $(tr)
      .children("th, td")
      .toArray()
      .flatMap((cell) => {
        // A colspan repeats the value so every row keeps the header's width.
        const span = Math.min(Math.max(Number($(cell).attr("colspan") ?? 1) || 1, 1), 50);
        return Array.from({ length: span }, () => cellText($, cell));
      });
  const theadRows = rows.filter((tr) => $(tr).parent().is("thead"));
  const firstIsHeader = $(rows[0]).children("td").length === 0 && $(rows[0]).children("th").length > 0;
  const headerRows = theadRows.length > 0 ? theadRows : firstIsHeader ? [rows[0]] : [];
  const header = headerRows.length > 0 ? mergeHeaderRows(headerRows.map(cellsOf)) : [];
  const dataRows = rows.filter((tr) => !headerRows.includes(tr)).map(cellsOf);
  const caption = $(table).children("caption").first().text().replace(/\s+/g, " ").trim();
  return { caption: caption || undefined, header, rows: dataRows };
}
