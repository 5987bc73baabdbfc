import { DocumentParseError, type ParsedDocument, type TextBlock } from "./types";

/** pdfjs is large: load it only when a PDF arrives. The legacy build is the one meant for Node. */
async function loadPdfjs() {
  return import("pdfjs-dist/legacy/build/pdf.mjs");
}

interface PositionedText {
  str: string;
  hasEOL?: boolean;
}

/** Safety bound: a 5,000-page scan would otherwise hold the ingest worker for minutes. */
const MAX_PAGES = 2_000;

/**
 * Text per page through pdfjs (no rendering, no fonts loaded); the page number stays with every
 * passage made from it. Scanned PDFs without a text layer produce no text and are reported as such.
 */
export async function parsePdf(bytes: Buffer, fallbackTitle: string): Promise<ParsedDocument> {
  const pdfjs = await loadPdfjs();
  let doc;
  try {
    doc = await pdfjs.getDocument({
      // pdfjs takes ownership of (detaches) the buffer it is given, so it gets a copy.
      data: new Uint8Array(bytes),
      verbosity: pdfjs.VerbosityLevel.ERRORS,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
    }).promise;
  } catch (e) {
    throw new DocumentParseError(`not a valid PDF (${errorText(e)})`);
  }
  try {
    const blocks: TextBlock[] = [];
    const pages = Math.min(doc.numPages, MAX_PAGES);
    for (let n = 1; n <= pages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const text = (content.items as PositionedText[])
        .map((item) => (typeof item.str === "string" ? item.str + (item.hasEOL ? "\n" : "") : ""))
        .join("")
        // Words hyphenated across a line break are joined back ("inform-\nation" → "information").
        .replace(/(\p{Ll})-\n(\p{Ll})/gu, "$1$2");
      if (text.trim()) blocks.push({ text, location: { page: n } });
      page.cleanup();
    }
    if (blocks.length === 0) {
      throw new DocumentParseError(`the PDF has no text layer (a scanned image?); run OCR on it first`);
    }
    const info = ((await doc.getMetadata().catch(() => null))?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === "string" && info.Title.trim() ? info.Title.trim() : fallbackTitle;
    return { title, blocks, tables: [], metadata: { pages: doc.numPages } };
  } catch (e) {
    if (e instanceof DocumentParseError) throw e;
    throw new DocumentParseError(`not a valid PDF (${errorText(e)})`);
  } finally {
    await doc.destroy();
  }
}

function errorText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\.$/, "");
}
