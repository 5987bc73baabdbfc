import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece } from "../../../backends/types";
import { normalizeLabel } from "../../text";
import type { ScoredEvidence } from "../../contracts";
import { isPathPiece } from "./extract-paths";
import { isRowPiece } from "./extract-rows";
import { isTriplePiece, tripleEnds } from "./extract-triples";
import { type QuestionEntity, type QuestionFocus, focusMatches, isQuestionEntityNode, namesFocus } from "./question-focus";

/**
 * Questions that need two sources ("the hotel cap per night in the city where Fjelltex Textiles is
 * located"): one source's fact leads from the question's entity to a bridge entity (Fjelltex Textiles
 * -located in-> Oslo, in the RDF graph), and another source's row about that bridge holds the answer
 * (the Oslo row of the travel policy's hotel table). HybGRAG's and Quasar's multi-source answers need
 * this join; the classical answerer makes it explicitly:
 * - a bridge is the far end of a triple or path step from a question entity along a relation the
 *   question names;
 * - it is only used when a row of ANOTHER knowledge base names it and has a column the question asks
 *   about: otherwise the bridge is simply the answer ("In which city is Fjelltex located?" → Oslo).
 */
export interface Bridge {
  entity: QuestionEntity;
  /** Evidence index of the fact that leads to the bridge (cited with the answer). */
  via: number;
}

interface Hop {
  label: string;
  ref: string;
  via: number;
  kb: string;
}

function hopsFromQuestion(evidence: EvidencePiece[], focus: QuestionFocus): Hop[] {
  const hops: Hop[] = [];
  evidence.forEach((piece, i) => {
    if (isTriplePiece(piece)) {
      const { subject, predicate, object } = piece.data;
      if (!namesFocus(predicate.label, focus)) return;
      const ends = tripleEnds(piece.data, focus);
      if (ends.subject && !ends.object && object.termType !== "Literal")
        hops.push({ label: object.label, ref: object.value, via: i, kb: piece.provenance.kb });
      if (ends.object && !ends.subject) hops.push({ label: subject.label, ref: subject.value, via: i, kb: piece.provenance.kb });
    } else if (isPathPiece(piece)) {
      const { nodes, edges } = piece.data;
      nodes.forEach((node, n) => {
        if (!isQuestionEntityNode(node.caption, [node.id], focus)) return;
        for (const m of [n - 1, n + 1]) {
          const next = nodes[m];
          const edge = edges[Math.min(n, m)];
          if (!next || !edge || isQuestionEntityNode(next.caption, [next.id], focus) || !namesFocus(edge.type, focus)) continue;
          hops.push({ label: next.caption, ref: next.id, via: i, kb: piece.provenance.kb });
        }
      });
    }
  });
  return hops;
}

/** Whether a row of another KB names the bridge in one cell and has another column the question asks about. */
function rowUsesBridge(piece: EvidencePiece, hop: Hop, focus: QuestionFocus): boolean {
  if (!isRowPiece(piece) || piece.provenance.kb === hop.kb) return false;
  const target = normalizeLabel(hop.label);
  const at = piece.data.values.findIndex((v) => normalizeLabel(formatScalar(v)) === target);
  if (at < 0) return false;
  return piece.data.columns.some((c, i) => i !== at && focusMatches(c, focus) > 0);
}

export function findBridges(evidence: ScoredEvidence[], focus: QuestionFocus): Bridge[] {
  if (focus.entities.length === 0) return [];
  const pieces = evidence.map((e) => e.piece);
  const bridges = new Map<string, Bridge>();
  for (const hop of hopsFromQuestion(pieces, focus)) {
    const key = normalizeLabel(hop.label);
    if (!key || bridges.has(key)) continue;
    if (!pieces.some((p) => rowUsesBridge(p, hop, focus))) continue;
    bridges.set(key, { entity: { mention: hop.label, forms: [hop.label], refs: [hop.ref], linked: true }, via: hop.via });
  }
  return [...bridges.values()];
}

/** The focus with the bridges as further entities: rows about the bridge are then anchored, its siblings background. */
export function focusWithBridges(focus: QuestionFocus, bridges: Bridge[]): QuestionFocus {
  if (bridges.length === 0) return focus;
  return { ...focus, entities: [...focus.entities, ...bridges.map((b) => b.entity)] };
}
