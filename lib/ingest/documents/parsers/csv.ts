import { parse } from "csv-parse/sync";
import { DOCUMENT_LIMITS } from "./limits";
import { DocumentParseError, type ParsedDocument } from "./types";

/** A CSV file is one table: the first row names the columns. */
export function parseCsv(source: string, title: string): ParsedDocument {
  let records: string[][];
  try {
    records = parse(source, {
      bom: true,
      delimiter: sniffDelimiter(source),
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      // One endless quoted field would otherwise be held whole before the record ends.
      max_record_size: DOCUMENT_LIMITS.csvRecordChars,
    }) as string[][];
  } catch (e) {
    throw new DocumentParseError(`not a valid CSV file (${e instanceof Error ? e.message : String(e)})`);
  }
  if (records.length === 0) throw new DocumentParseError(`the CSV file has no rows`);
  const [header, ...rows] = records;
  if (header.length > DOCUMENT_LIMITS.csvColumns)
    throw new DocumentParseError(
      `the CSV file has ${header.length.toLocaleString("en")} columns; at most ${DOCUMENT_LIMITS.csvColumns.toLocaleString("en")} are read`,
    );
  return { title, blocks: [], tables: [{ caption: title, header, rows, beforeBlock: 0 }] };
}

/** Spreadsheets export ";" or tab-separated files under the .csv name too; pick what the header line uses most. */
function sniffDelimiter(source: string): string {
  const firstLine = source.slice(0, source.search(/\r?\n|$/));
  const counts = [",", ";", "\t", "|"].map((d) => [d, firstLine.split(d).length - 1] as const);
  const best = counts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return best[1] > 0 ? best[0] : ",";
}
