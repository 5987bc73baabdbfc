"use client";

import { useId, useMemo } from "react";
import type { PathData, Scalar } from "@/lib/backends/types";
import { layoutGraph } from "./graph-layout";

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function show(v: Scalar | Scalar[]): string {
  return Array.isArray(v) ? v.map((x) => String(x)).join(", ") : v === null ? "—" : String(v);
}

/** A graph path drawn as boxes and arrows, with the same facts as a list for screen readers and copying. */
export function PathView({ data }: { data: PathData }) {
  const layout = useMemo(() => layoutGraph(data), [data]);
  const id = useId();
  const byId = new Map(data.nodes.map((n) => [n.id, n]));
  const caption = (nodeId: string) => byId.get(nodeId)?.caption || nodeId;
  const described = data.edges.map((e) => `${caption(e.from)} —${e.type}→ ${caption(e.to)}`);
  return (
    <div className="space-y-2" data-testid="path-view">
      <div className="overflow-x-auto rounded border border-slate-200 bg-slate-50 p-2">
        <svg
          role="img"
          aria-labelledby={`${id}-title`}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width="100%"
          style={{ maxWidth: layout.width, minWidth: Math.min(layout.width, 480) }}
          preserveAspectRatio="xMinYMin meet"
        >
          <title id={`${id}-title`}>{described.join("; ") || data.nodes.map((n) => n.caption).join(", ")}</title>
          <defs>
            <marker id={`${id}-arrow`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="#64748b" />
            </marker>
          </defs>
          {layout.edges.map((e) => (
            <g key={e.key}>
              <line x1={e.x1} y1={e.y1} x2={e.x2} y2={e.y2} stroke="#64748b" strokeWidth={1.5} markerEnd={`url(#${id}-arrow)`} />
              <text
                x={e.labelX}
                y={e.labelY}
                textAnchor={e.anchor}
                fontSize={11}
                fill="#9f1239"
                fontFamily="ui-monospace, monospace"
                paintOrder="stroke"
                stroke="#f8fafc"
                strokeWidth={4}
              >
                {clip(e.type, 22)}
              </text>
            </g>
          ))}
          {layout.nodes.map((n) => (
            <g key={n.id}>
              <rect x={n.x} y={n.y} width={n.w} height={n.h} rx={8} fill="#ffffff" stroke="#cbd5e1" />
              {n.label && (
                <text x={n.x + n.w / 2} y={n.y + 16} textAnchor="middle" fontSize={10} fill="#64748b">
                  {clip(n.label, 24)}
                </text>
              )}
              <text x={n.x + n.w / 2} y={n.y + (n.label ? 34 : 28)} textAnchor="middle" fontSize={13} fontWeight={600} fill="#0f172a">
                {clip(n.caption, 20)}
              </text>
            </g>
          ))}
        </svg>
      </div>
      <ul className="space-y-0.5 text-xs text-slate-700" aria-label="Path as text">
        {data.edges.map((e, i) => (
          <li key={i}>
            <span className="font-medium">{caption(e.from)}</span> <span className="font-mono text-rose-800">—{e.type}→</span>{" "}
            <span className="font-medium">{caption(e.to)}</span>
            {Object.keys(e.properties).length > 0 && (
              <span className="text-slate-500">
                {" "}
                (
                {Object.entries(e.properties)
                  .map(([k, v]) => `${k}: ${show(v)}`)
                  .join(", ")}
                )
              </span>
            )}
          </li>
        ))}
      </ul>
      <details className="text-xs text-slate-600">
        <summary className="cursor-pointer">Node properties</summary>
        <dl className="mt-1 space-y-1">
          {data.nodes.map((n) => (
            <div key={n.id}>
              <dt className="font-medium text-slate-800">
                {n.caption} <span className="font-normal text-slate-500">{n.labels.join(", ")}</span>
              </dt>
              <dd className="pl-3">
                {Object.entries(n.properties)
                  .map(([k, v]) => `${k}: ${show(v)}`)
                  .join(" · ") || "no properties"}
              </dd>
            </div>
          ))}
        </dl>
      </details>
    </div>
  );
}
