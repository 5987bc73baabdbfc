/** The formulate stage: native queries per candidate KB (guides, schema linking, neighbourhoods, patterns, search). */
export { classicalFormulate, formulateCandidate, adjustedIntent, DEFAULT_MAX_QUERIES_PER_CANDIDATE, type FormulateInput } from "./strategy";
export {
  adaptGuide,
  guideQueries,
  GUIDE_MIN_CONTAINMENT,
  GUIDE_MIN_SCORE,
  GUIDE_MIN_TEMPLATE,
  GUIDE_NEARLY_IDENTICAL,
  type FormulateGuide,
  type GuideAdaptation,
} from "./guide";
export { adjustmentsFor, noAdjustments, type Adjustments } from "./feedback";
export { formulateSql, SQL_ROW_LIMIT } from "./sql/formulate-sql";
export { formulateCypher, GRAPH_PATH_LIMIT } from "./graph/formulate-cypher";
export { formulateSparql, RDF_TRIPLE_LIMIT } from "./graph/formulate-sparql";
export { formulateSearch, searchText } from "./search/formulate-search";
export { rankRelations, type RelationCandidate } from "./relations";
