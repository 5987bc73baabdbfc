import { formatScalar } from "../../../backends/evidence";
import { normalizeLabel } from "../../text";
import type { EvidencePiece, PathData, PathNode, Scalar } from "../../../backends/types";
import type { Occurrence } from "./occurrence";
import { type QuestionFocus, isQuestionEntityNode, isQuestionEntityValue, namesFocus } from "./question-focus";
import { displayCell, valueKey } from "./value-key";
import { type ValueType, classifyValue, hintFromLabel, readableLabel } from "./value-types";

/** A path with no question entity on it is background: its nodes are weak candidates. */
const UNANCHORED_WEIGHT = 0.5;
/** Each hop beyond the first weakens a node: 2 hops 0.8, 3 hops 0.67 (the query asked for them, so gently). */
const HOP_DECAY = 0.25;
/** The relationship next to the node is not the one asked about. */
const UNMATCHED_RELATION = 0.7;
/** Inner nodes of a longer path are less often the answer than its end. */
const INNER_NODE = 0.85;
/** The question names the class of its answer ("which city") and this node is of another class. */
const OTHER_CLASS = 0.5;
/** A property of a node or relationship away from the question's entities. */
const DISTANT_PROPERTY = 0.7;

export function isPathPiece(piece: EvidencePiece): piece is EvidencePiece & { data: PathData } {
  return piece.kind === "path" && "nodes" in piece.data;
}

/** Positions of the question's entities along the path (by node id or caption). */
export function entityPositions(data: PathData, focus: QuestionFocus): number[] {
  return data.nodes.map((n, i) => (isQuestionEntityNode(n.caption, [n.id], focus) ? i : -1)).filter((i) => i >= 0);
}

function nodeType(node: PathNode, nameKinds: boolean): ValueType {
  const fromLabels = node.labels.map((l) => hintFromLabel(l)).find((h) => h === "person" || h === "organisation" || h === "location");
  return fromLabels ?? classifyValue(node.caption, null, nameKinds);
}

function relationMatches(type: string, focus: QuestionFocus): boolean {
  return namesFocus(readableLabel(type), focus);
}

/** Property values whose name is what the question asks ("released" for "when was … released", "roles" for "what role"). */
function propertyOccurrences(
  properties: Record<string, Scalar | Scalar[]>,
  owner: string,
  weight: number,
  pieceIndex: number,
  piece: EvidencePiece,
  focus: QuestionFocus,
): Occurrence[] {
  const out: Occurrence[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!namesFocus(readableLabel(name), focus)) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const text = formatScalar(value);
      if (text === "" || isQuestionEntityValue(text, focus)) continue;
      const type = classifyValue(value, hintFromLabel(name), focus.wantsNameKind);
      const display = displayCell(value, name, type);
      out.push({ display, key: valueKey(display, type), type, pieceIndex, weight, slot: [piece.provenance.kb, owner, name].join("|") });
    }
  }
  return out;
}

/**
 * Candidates from a graph path: the nodes that are not the question's entities, weighted by closeness
 * to one (1 hop: full weight, 2 hops: 0.8...), by whether the relationship next to them is the one asked
 * about, and by being the path's end; plus property values (of nodes and relationships) named like the
 * relation asked ("roles: Jim Lovell" for "what role did Tom Hanks play").
 */
export function pathOccurrences(piece: EvidencePiece & { data: PathData }, pieceIndex: number, focus: QuestionFocus): Occurrence[] {
  const { nodes, edges } = piece.data;
  const anchors = entityPositions(piece.data, focus);
  const anyRelation = focus.focusTerms.size === 0;
  const out: Occurrence[] = [];
  nodes.forEach((node, i) => {
    const distance = anchors.length > 0 ? Math.min(...anchors.map((a) => Math.abs(a - i))) : null;
    const closeness = distance === null ? UNANCHORED_WEIGHT : distance <= 1 ? 1 : 1 / (1 + HOP_DECAY * (distance - 1));
    out.push(
      ...propertyOccurrences(
        node.properties,
        node.labels.join(":") || "node",
        distance === 0 || distance === 1 ? 1 : DISTANT_PROPERTY,
        pieceIndex,
        piece,
        focus,
      ),
    );
    if (distance === 0 || isQuestionEntityValue(node.caption, focus)) return;
    // The relationship on this node's side facing the nearest entity (or either side when unanchored).
    const nearest = distance === null ? null : anchors.find((a) => Math.abs(a - i) === distance)!;
    const edge = nearest === null ? (edges[i] ?? edges[i - 1]) : nearest > i ? edges[i] : edges[i - 1];
    const relation = anyRelation || (edge && relationMatches(edge.type, focus)) ? 1 : UNMATCHED_RELATION;
    const end = i === 0 || i === nodes.length - 1 ? 1 : INNER_NODE;
    const type = nodeType(node, focus.wantsNameKind);
    const classFit =
      focus.answerClasses.size === 0 ||
      node.labels.length === 0 ||
      node.labels.some((l) => focus.answerClasses.has(normalizeLabel(readableLabel(l))))
        ? 1
        : OTHER_CLASS;
    out.push({
      display: node.caption,
      key: valueKey(node.caption, type),
      type,
      pieceIndex,
      weight: closeness * relation * end * classFit,
      slot: [piece.provenance.kb, "path", edge?.type ?? "", node.labels.join(":")].join("|"),
    });
  });
  edges.forEach((edge, i) => {
    const touches = anchors.includes(i) || anchors.includes(i + 1);
    out.push(
      ...propertyOccurrences(edge.properties, edge.type, touches || anchors.length === 0 ? 1 : DISTANT_PROPERTY, pieceIndex, piece, focus),
    );
  });
  return out;
}
