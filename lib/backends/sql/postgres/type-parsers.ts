import pg from "pg";
import type { CustomTypesConfig } from "pg";

/**
 * How values arrive from PostgreSQL: numbers where JavaScript holds them exactly, otherwise the
 * server's own text, never a silently rounded number. Dates and timestamps without a time zone stay
 * as written: turning them into Date objects would shift them by this server's time zone.
 */
const OID = { int8: 20, numeric: 1700, date: 1082, timestamp: 1114, time: 1083, timetz: 1266, interval: 1186, money: 790 } as const;

function exactNumber(text: string): number | string {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  if (/^-?\d+$/.test(text)) return Number.isSafeInteger(n) ? n : text;
  return String(n) === text.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "") ? n : text;
}

const asText = (text: string) => text;

export const pgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    switch (oid) {
      case OID.int8:
      case OID.numeric:
        return exactNumber;
      case OID.date:
      case OID.timestamp:
      case OID.time:
      case OID.timetz:
      case OID.interval:
      case OID.money:
        return asText;
      default:
        return format === "binary" ? pg.types.getTypeParser(oid, "binary") : pg.types.getTypeParser(oid, "text");
    }
  }) as CustomTypesConfig["getTypeParser"],
};
