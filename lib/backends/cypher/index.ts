/** Neo4j property graphs over Bolt: read-only Cypher checked with EXPLAIN, in READ sessions. */
export { createCypherBackend } from "./backend";
export { cypherConfigSchema, cypherSecretsSchema, type CypherConfig, type CypherSecrets } from "./config";
export { checkCypherSafety, inspectExplainSummary, ALLOWED_PROCEDURES, type SafetyReport } from "./safety";
export { neighborhoodQuery, type NeighborhoodRequest } from "./neighborhood";
export { toJsonValue, type GraphNodeValue, type GraphPathValue, type GraphRelationshipValue } from "./values";
