// The process that reads uploaded documents for lib/ingest/documents/parsers/parse-process.ts, so no
// document parser (cheerio/parse5, marked, pdfjs, csv-parse, JSON) ever runs on the server's main thread.
// A hostile file (200,000 nested <div>, 8,000 nested Markdown lists, a PDF drawing millions of characters)
// then costs only this process: the parent kills it at the deadline or past its memory and starts another.
//
// Messages in:  { id, name, bytes, mediaType? }
// Replies:      { id, ok: true, format, parsed }
//               { id, ok: false, error, unreadable }   unreadable: the file's fault (DocumentParseError)
//
// The parsers are the TypeScript modules beside this file, loaded through tsx (a runtime dependency: the
// app itself starts with `node --import tsx`), so the rules they apply exist once. The parent starts this
// file with `--import tsx`.
const { readDocument, DocumentParseError } = await import("./read-document.ts");

process.on("message", async (msg) => {
  if (!msg || typeof msg !== "object" || msg.type !== "parse") return;
  try {
    const { format, parsed } = await readDocument({ name: msg.name, bytes: Buffer.from(msg.bytes), mediaType: msg.mediaType });
    process.send({ id: msg.id, ok: true, format, parsed });
  } catch (e) {
    // A RangeError is a parser running out of stack on nesting the depth checks did not foresee.
    const tooDeep = e instanceof RangeError;
    process.send({
      id: msg.id,
      ok: false,
      unreadable: e instanceof DocumentParseError || tooDeep,
      tooDeep,
      error: e instanceof Error ? e.message : String(e),
    });
  }
});
// The parent went away: nothing is left to answer.
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });
