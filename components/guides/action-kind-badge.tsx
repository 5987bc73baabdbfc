import { ACTION_NAME } from "@/lib/guides/action-names";
import type { GuideActionKind } from "@/lib/pipeline/guide-actions";

const STYLE: Record<GuideActionKind, string> = {
  NATIVE_QUERY: "bg-slate-100 text-slate-700",
  SELECT_COORDINATES: "bg-brand-50 text-brand-700",
  SELECT_SENTENCE_IDXS: "bg-amber-50 text-amber-800",
  NEIGHBORHOOD: "bg-emerald-50 text-emerald-800",
};

export function ActionKindBadge({ kind }: { kind: GuideActionKind }) {
  return <span className={`inline-block rounded px-1.5 py-0.5 text-[11px] font-medium ${STYLE[kind]}`}>{ACTION_NAME[kind]}</span>;
}
