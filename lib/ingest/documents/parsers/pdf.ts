import { DOCUMENT_LIMITS } from "./limits";
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
    let documentChars = 0;
    const deadline = performance.now() + DOCUMENT_LIMITS.pdfDocumentSeconds * 1000;
    for (let n = 1; n <= pages; n++) {
      const page = await doc.getPage(n);
      const raw = await pageText(page, n, DOCUMENT_LIMITS.pdfDocumentChars - documentChars, deadline);
      documentChars += raw.length;
      // Words hyphenated across a line break are joined back ("inform-\nation" → "information").
      const text = raw.replace(/(\p{Ll})-\n(\p{Ll})/gu, "$1$2");
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

interface PdfPage {
  streamTextContent(): ReadableStream<{ items: unknown[] }>;
}

/**
 * A page's text, read as pdfjs streams it and abandoned at the cap: 60 pages sharing one content stream
 * that draws 4 M characters took 127 s and 1.4 GB when every page was read whole (case 13 of issue 31).
 */
async function pageText(page: PdfPage, n: number, documentLeft: number, documentDeadline: number): Promise<string> {
  const reader = page.streamTextContent().getReader();
  const parts: string[] = [];
  let length = 0;
  // pdfjs interprets every drawing instruction of the page, shown or not: a page whose instructions run
  // for megabytes takes seconds however little text it yields, so each page also has a time budget.
  let timer: NodeJS.Timeout | undefined;
  const pageMs = DOCUMENT_LIMITS.pdfPageSeconds * 1000;
  const documentMs = Math.max(0, documentDeadline - performance.now());
  const overTime = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DocumentParseError(
            documentMs < pageMs
              ? `the PDF took longer than ${DOCUMENT_LIMITS.pdfDocumentSeconds} s to read (by page ${n}; its drawing instructions are unusually large); a file drawn this way is not read`
              : `page ${n} of the PDF took longer than ${DOCUMENT_LIMITS.pdfPageSeconds} s to read (its drawing instructions are unusually large); a file drawn this way is not read`,
          ),
        ),
      Math.min(pageMs, documentMs),
    );
  });
  try {
    for (;;) {
      const { value, done } = await Promise.race([reader.read(), overTime]);
      if (done) return parts.join("");
      for (const item of value.items as PositionedText[]) {
        if (typeof item.str !== "string") continue;
        const s = item.str + (item.hasEOL ? "\n" : "");
        length += s.length;
        parts.push(s);
        if (length > DOCUMENT_LIMITS.pdfPageChars)
          throw new DocumentParseError(
            `page ${n} of the PDF holds more than ${fmt(DOCUMENT_LIMITS.pdfPageChars)} characters of text (a full page holds about 5,000); a file drawn this way is not read`,
          );
        if (length > documentLeft)
          throw new DocumentParseError(
            `the PDF holds more than ${fmt(DOCUMENT_LIMITS.pdfDocumentChars)} characters of text (by page ${n}); split it and upload the parts`,
          );
      }
    }
  } finally {
    clearTimeout(timer);
    // Stops pdfjs from reading the rest of the content stream.
    await reader.cancel().catch(() => undefined);
  }
}

const fmt = (n: number) => n.toLocaleString("en");

function errorText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\.$/, "");
}
