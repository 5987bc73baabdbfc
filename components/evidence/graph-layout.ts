import type { PathData } from "@/lib/backends/types";

/**
 * A small deterministic layout for a graph path or neighbourhood: nodes in walk order (from a node no
 * edge points to, breadth-first over the edges), laid out left to right in rows that snake back, so a
 * chain of N nodes reads as one line of boxes and arrows. No dependency, no physics, no surprises.
 */

export interface LaidOutNode {
  id: string;
  caption: string;
  label: string | null;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LaidOutEdge {
  key: string;
  from: string;
  to: string;
  type: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  labelX: number;
  labelY: number;
  /** Labels of vertical edges sit beside the line, not on it. */
  anchor: "middle" | "start";
}

export interface GraphLayout {
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  width: number;
  height: number;
}

export const LAYOUT = { perRow: 3, nodeW: 150, nodeH: 46, gapX: 110, gapY: 70, pad: 12 } as const;

export function walkOrder(data: PathData): string[] {
  const ids = data.nodes.map((n) => n.id);
  const known = new Set(ids);
  const adjacent = new Map<string, string[]>(ids.map((id) => [id, []]));
  const inDegree = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const e of data.edges) {
    if (!known.has(e.from) || !known.has(e.to)) continue;
    adjacent.get(e.from)!.push(e.to);
    adjacent.get(e.to)!.push(e.from);
    inDegree.set(e.to, (inDegree.get(e.to) ?? 0) + 1);
  }
  const order: string[] = [];
  const seen = new Set<string>();
  const starts = [...ids.filter((id) => inDegree.get(id) === 0 && adjacent.get(id)!.length > 0), ...ids];
  for (const start of starts) {
    if (seen.has(start)) continue;
    const queue = [start];
    seen.add(start);
    while (queue.length) {
      const id = queue.shift()!;
      order.push(id);
      for (const next of adjacent.get(id)!) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
  }
  return order;
}

/** Where the segment from a box's centre towards (dx, dy) leaves the box. */
function boxExit(cx: number, cy: number, dx: number, dy: number, halfW: number, halfH: number): [number, number] {
  const t = Math.min(dx ? halfW / Math.abs(dx) : Infinity, dy ? halfH / Math.abs(dy) : Infinity);
  return [cx + dx * t, cy + dy * t];
}

export function layoutGraph(data: PathData, perRow: number = LAYOUT.perRow): GraphLayout {
  const { nodeW, nodeH, gapX, gapY, pad } = LAYOUT;
  const byId = new Map(data.nodes.map((n) => [n.id, n]));
  const order = walkOrder(data);
  const columns = Math.max(1, Math.min(perRow, order.length));
  const nodes: LaidOutNode[] = order.map((id, i) => {
    const row = Math.floor(i / columns);
    const col = row % 2 === 0 ? i % columns : columns - 1 - (i % columns);
    const n = byId.get(id)!;
    return {
      id,
      caption: n.caption || n.id,
      label: n.labels[0] ?? null,
      x: pad + col * (nodeW + gapX),
      y: pad + row * (nodeH + gapY),
      w: nodeW,
      h: nodeH,
    };
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  const pairCount = new Map<string, number>();
  const edges: LaidOutEdge[] = [];
  data.edges.forEach((e, i) => {
    const a = at.get(e.from);
    const b = at.get(e.to);
    if (!a || !b || a === b) return;
    const pair = [e.from, e.to].sort().join("\u0000");
    const nth = pairCount.get(pair) ?? 0;
    pairCount.set(pair, nth + 1);
    const [acx, acy, bcx, bcy] = [a.x + a.w / 2, a.y + a.h / 2, b.x + b.w / 2, b.y + b.h / 2];
    const [x1, y1] = boxExit(acx, acy, bcx - acx, bcy - acy, a.w / 2, a.h / 2);
    const [x2, y2] = boxExit(bcx, bcy, acx - bcx, acy - bcy, b.w / 2, b.h / 2);
    // Parallel edges between the same two nodes keep their labels apart.
    const vertical = Math.abs(x2 - x1) < Math.abs(y2 - y1);
    edges.push({
      key: `${i}`,
      from: e.from,
      to: e.to,
      type: e.type,
      x1,
      y1,
      x2,
      y2,
      labelX: (x1 + x2) / 2 + (vertical ? 8 : 0),
      labelY: (y1 + y2) / 2 + (vertical ? 4 : -6) - nth * 14,
      anchor: vertical ? "start" : "middle",
    });
  });
  const rows = Math.max(1, Math.ceil(order.length / columns));
  return { nodes, edges, width: pad * 2 + columns * nodeW + (columns - 1) * gapX, height: pad * 2 + rows * nodeH + (rows - 1) * gapY };
}
