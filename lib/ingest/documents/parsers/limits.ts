import { Parser } from "htmlparser2";
import { DocumentParseError } from "./types";

/**
 * What one uploaded document may cost to read (issue 31, cases 10, 12 and 13). Deep nesting makes
 * tree builders quadratic and recursive code overflow; a small PDF can draw millions of characters.
 * The nesting is measured first by a linear scan, so a hostile file is refused before any tree is built.
 */
export const DOCUMENT_LIMITS = {
  /** Element nesting of an HTML document (real pages stay under about 40). */
  htmlDepth: 256,
  /** Lists and block quotes in Markdown, counted as markers plus two columns of indentation a level. */
  markdownDepth: 128,
  /** Arrays and objects inside each other in a JSON document. */
  jsonDepth: 64,
  /** Characters of text on one PDF page (a dense page holds about 5,000). */
  pdfPageChars: 100_000,
  /** Seconds to read one PDF page's text (a normal page takes milliseconds). */
  pdfPageSeconds: 10,
  /**
   * Seconds to read all of a PDF's pages. pdfjs keeps only the text inside the page, but interprets all
   * of it: case 13's pages each yield 3,172 characters and cost about 4 s, so no text cap sees them.
   */
  pdfDocumentSeconds: 30,
  /** Characters of text in one PDF (2,000 dense pages). */
  pdfDocumentChars: 10_000_000,
  /** Characters in one CSV record, and columns of a CSV file. */
  csvRecordChars: 1_000_000,
  csvColumns: 1_000,
} as const;

const fmt = (n: number) => n.toLocaleString("en");

function tooDeep(limit: number, what: string): DocumentParseError {
  return new DocumentParseError(`${what} nested more than ${fmt(limit)} levels deep; flatten it and upload it again`);
}

/** Stops the scan at the first level past the limit. */
class DepthExceeded extends Error {}

/** Throws when HTML elements nest deeper than the limit (htmlparser2's tokenizer: linear in the file). */
export function checkHtmlDepth(source: string, limit: number = DOCUMENT_LIMITS.htmlDepth): void {
  let depth = 0;
  const parser = new Parser(
    {
      onopentag() {
        if (++depth > limit) throw new DepthExceeded();
      },
      onclosetag() {
        depth = Math.max(0, depth - 1);
      },
    },
    { decodeEntities: false },
  );
  try {
    parser.end(source);
  } catch (e) {
    if (e instanceof DepthExceeded) throw tooDeep(limit, "the HTML has elements");
    throw e;
  }
}

/** List or quote markers at the start of a line's content ("> - 1. "). */
const CONTAINER_MARKER = /^(?:>|[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;

/**
 * Throws when Markdown containers nest deeper than the limit. A line's nesting is its markers plus
 * its indentation (two columns a level): what marked turns into nested lists and quotes.
 */
export function checkMarkdownDepth(source: string, limit: number = DOCUMENT_LIMITS.markdownDepth): void {
  let start = 0;
  while (start < source.length) {
    let end = source.indexOf("\n", start);
    if (end < 0) end = source.length;
    let i = start;
    let columns = 0;
    let markers = 0;
    while (i < end) {
      const c = source.charCodeAt(i);
      if (c === 32 || c === 9) {
        columns += c === 9 ? 4 : 1;
        i++;
        continue;
      }
      const m = CONTAINER_MARKER.exec(source.slice(i, Math.min(end, i + 12)));
      if (!m) break;
      markers++;
      i += m[0].length;
    }
    if (Math.floor(columns / 2) + markers > limit) throw tooDeep(limit, "the Markdown has lists or quotes");
    start = end + 1;
  }
}

/** Throws when JSON arrays and objects nest deeper than the limit (strings skipped). */
export function checkJsonDepth(source: string, limit: number = DOCUMENT_LIMITS.jsonDepth): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) throw tooDeep(limit, "the JSON has arrays or objects");
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}
