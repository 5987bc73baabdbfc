/**
 * Stacked header rows ("2019" under "Fiscal year") become one name per column ("Fiscal year 2019").
 * A value repeated across a colspan is kept once.
 */
export function mergeHeaderRows(rows: string[][]): string[] {
  const width = Math.max(0, ...rows.map((r) => r.length));
  return Array.from({ length: width }, (_, j) => {
    const parts: string[] = [];
    for (const r of rows) {
      const v = r[j]?.replace(/\s+/g, " ").trim();
      if (v && parts[parts.length - 1] !== v) parts.push(v);
    }
    return parts.join(" ");
  });
}
