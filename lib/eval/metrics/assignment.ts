/**
 * Maximum-weight assignment between rows and columns of a score matrix (Hungarian algorithm, O(n³)),
 * as DROP's and TAT-QA's multi-span F1 use scipy's linear_sum_assignment for. Returns, for each row,
 * the column it is matched to (or -1 when there are more rows than columns).
 */
export function maxAssignment(scores: number[][]): number[] {
  const rows = scores.length;
  const cols = rows ? Math.max(...scores.map((r) => r.length)) : 0;
  if (!rows || !cols) return Array.from({ length: rows }, () => -1);
  const n = Math.max(rows, cols);
  // Square cost matrix (minimisation): missing cells cost as much as a zero score.
  const max = Math.max(0, ...scores.flat());
  const cost = (i: number, j: number) => max - (i < rows && j < cols ? (scores[i][j] ?? 0) : 0);
  const u = new Array<number>(n + 1).fill(0);
  const v = new Array<number>(n + 1).fill(0);
  const p = new Array<number>(n + 1).fill(0);
  const way = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Array<number>(n + 1).fill(Infinity);
    const used = new Array<boolean>(n + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = p[j0];
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0);
  }
  const match = Array.from({ length: rows }, () => -1);
  for (let j = 1; j <= n; j++) {
    const i = p[j] - 1;
    if (i >= 0 && i < rows && j - 1 < cols) match[i] = j - 1;
  }
  return match;
}
