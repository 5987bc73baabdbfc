/**
 * The decision the embedder-based rules of this folder share: take the closest candidate when its
 * score reaches a floor and stands a margin above the next one. Chosen on training questions as the
 * loosest (floor, margin) on a grid whose precision reaches a target, and checked by leaving one
 * database out (the rule chosen without it, decided on it).
 */

/** One training item: its database, whether the closest candidate is the right one, its score and its lead. */
export interface Scored {
  db: string;
  right: boolean;
  top: number;
  margin: number;
}

export interface FloorMarginGrid {
  floors: number[];
  margins: number[];
  /** The training precision the chosen rule must reach. */
  precision: number;
  /** Among the rules that reach it: the one taking the most items, or the one getting the most right. */
  prefer: "taken" | "right";
}

export interface FloorMargin {
  floor: number;
  margin: number;
  taken: number;
  right: number;
  precision: number;
}

export function decide<T extends Scored>(rows: T[], floor: number, margin: number): T[] {
  return rows.filter((r) => r.top >= floor && r.margin >= margin);
}

/** The loosest rule on the grid that reaches the target precision; null when none does. */
export function chooseFloorMargin(rows: Scored[], grid: FloorMarginGrid): FloorMargin | null {
  let best: FloorMargin | null = null;
  for (const floor of grid.floors)
    for (const margin of grid.margins) {
      const taken = decide(rows, floor, margin);
      if (taken.length === 0) continue;
      const right = taken.filter((r) => r.right).length;
      const precision = right / taken.length;
      if (precision < grid.precision) continue;
      if (!best || (grid.prefer === "taken" ? taken.length > best.taken : right > best.right))
        best = { floor, margin, taken: taken.length, right, precision };
    }
  return best;
}

/** Leave one database out: the rule chosen on the others, decided on the held-out database's items. */
export function leaveOneDatabaseOut(rows: Scored[], grid: FloorMarginGrid): { taken: number; precision: number } {
  let taken = 0;
  let right = 0;
  for (const db of new Set(rows.map((r) => r.db))) {
    const rule = chooseFloorMargin(
      rows.filter((r) => r.db !== db),
      grid,
    );
    if (!rule) continue;
    const decided = decide(
      rows.filter((r) => r.db === db),
      rule.floor,
      rule.margin,
    );
    taken += decided.length;
    right += decided.filter((r) => r.right).length;
  }
  return { taken, precision: Number((right / Math.max(1, taken)).toFixed(3)) };
}
