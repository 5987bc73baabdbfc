"use client";

import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";

/**
 * A box that scrolls both ways and shows that it does: when columns lie beyond its right (or left)
 * edge, a shadow marks that edge and a line below says so, since many systems hide scrollbars until
 * one scrolls and a table then simply looks cut off. Focusable, so the arrow keys scroll it too.
 */
export function ScrollArea({ children, label, className = "" }: { children: ReactNode; label: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState({ left: false, right: false });
  const measure = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const left = el.scrollLeft > 1;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    setEdges((e) => (e.left === left && e.right === right ? e : { left, right }));
  }, []);
  useEffect(() => {
    measure();
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, [measure]);
  return (
    <div>
      <div className="relative">
        <div
          ref={ref}
          onScroll={measure}
          tabIndex={0}
          role="region"
          aria-label={label}
          className={`overflow-auto rounded border border-slate-200 bg-white focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 ${className}`}
          data-testid="scroll-area"
          data-overflow={edges.right ? "right" : edges.left ? "left" : "none"}
        >
          {children}
        </div>
        {edges.left && (
          <div aria-hidden className="pointer-events-none absolute inset-y-0 left-0 w-6 rounded-l bg-gradient-to-r from-slate-300/60" />
        )}
        {edges.right && (
          <div aria-hidden className="pointer-events-none absolute inset-y-0 right-0 w-6 rounded-r bg-gradient-to-l from-slate-300/60" />
        )}
      </div>
      {(edges.left || edges.right) && (
        <p className="mt-1 text-xs text-slate-500" data-testid="scroll-hint">
          More columns {edges.right ? "to the right" : "to the left"}: scroll sideways (or focus the table and use the arrow keys).
        </p>
      )}
    </div>
  );
}
