import type { SqlDialect } from "../../../../backends/sql/dialect";

/** How a calendar period of a date column is written (period-columns.ts decides when one is grouped by). */

export type PeriodUnit = "year" | "quarter" | "month" | "week" | "day";

export interface PeriodOf {
  unit: PeriodUnit;
  /** The date column the period is read from. */
  column: string;
  /** The column has a date or timestamp type (else it holds ISO text). */
  dateTyped: boolean;
  dialect: SqlDialect;
}

/** The SQL of a period of `date` (already quoted and qualified): "2025", "2025-Q4", "2025-11", "2025-W47", "2025-11-28". */
export function periodSql(date: string, period: PeriodOf): string {
  if (period.dialect === "postgres" && period.dateTyped) {
    const format = { year: "YYYY", quarter: 'YYYY-"Q"Q', month: "YYYY-MM", week: 'IYYY-"W"IW', day: "YYYY-MM-DD" }[period.unit];
    return `to_char(${date}, '${format}')`;
  }
  if (period.dialect === "postgres") {
    // Dates kept as ISO text: their leading characters are the period.
    if (period.unit === "quarter") return `substr(${date}, 1, 4) || '-Q' || ((CAST(substr(${date}, 6, 2) AS integer) + 2) / 3)`;
    if (period.unit === "week") return `to_char(CAST(substr(${date}, 1, 10) AS date), 'IYYY-"W"IW')`;
    return `substr(${date}, 1, ${{ year: 4, month: 7, day: 10 }[period.unit]})`;
  }
  if (period.unit === "quarter") return `strftime('%Y', ${date}) || '-Q' || ((CAST(strftime('%m', ${date}) AS INTEGER) + 2) / 3)`;
  return `strftime('${{ year: "%Y", month: "%Y-%m", week: "%Y-W%W", day: "%Y-%m-%d" }[period.unit]}', ${date})`;
}
