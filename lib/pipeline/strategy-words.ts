/** How each retrieval module is named to the person who asked: the modules' own names ("schema-linking", "sparql-pattern") are internal. */
const STRATEGY_WORDS: Record<string, string> = {
  search: "document search",
  "schema-linking": "database query",
  "sparql-pattern": "graph query",
  neighborhood: "graph neighbourhood",
  cypher: "graph query",
  guide: "saved query",
  llm: "query written by the model",
};

export function strategyInWords(strategy: string): string {
  return STRATEGY_WORDS[strategy] ?? "query";
}
