/**
 * One reader of the question (issue 27): `understand` reads the question once into the Intent (entities with
 * their spans, time cues and periods, aggregate and superlative, constructs, answer form), and every later part
 * of the pipeline reads the Intent, not the question's text. ESLint (eslint.config.mjs) refuses a read of
 * `intent.completed` or `intent.question` anywhere in lib/pipeline outside understand and the contract, except
 * in the files below, each with why it still reads the text. tests/unit/question-readers.test.ts fails when a
 * listed file no longer reads it, so the list only shrinks.
 *
 * Paths are relative to the repository root.
 */

/** The whole question is the input itself: an LLM prompt, or a model that compares meaning (embedder, matcher). */
const BY_MEANING = {
  "lib/pipeline/prompts.ts": "the LLM prompts carry the question for the model to read",
  "lib/pipeline/stages/answer/prompt.ts": "the LLM prompt carries the question",
  "lib/pipeline/stages/critique/prompt.ts": "the LLM prompt carries the question",
  "lib/pipeline/stages/formulate/prompt.ts": "the LLM prompt carries the question",
  "lib/pipeline/stages/select/prompt.ts": "the LLM prompt carries the question",
  "lib/pipeline/stages/select-evidence/prompt.ts": "the LLM prompt carries the question",
  "lib/pipeline/stages/formulate/llm.ts": "the LLM strategy sends the question and its search text",
  "lib/pipeline/scorers/dense.ts": "the embedder embeds the question",
  "lib/pipeline/scorers/cross-encoder.ts": "the cross-encoder scores the question against each passage",
  "lib/pipeline/run.ts": "the guide matcher and embedder compare the question with the analysts' guides",
  "lib/pipeline/run/round.ts": "the off-topic check embeds the question against the answer",
  "lib/pipeline/stages/formulate/search/formulate-search.ts": "the search text is the question's words (BM25 and k-NN)",
  "lib/pipeline/stages/formulate/sql/learned-column-meaning.ts": "the column model scores the question against each column",
};

/** Still read by wording or by the question's own words: the work issue 27 leaves, to move into the Intent. */
const BY_WORDING = {
  "lib/pipeline/scorers/mentions.ts": "where an entity is mentioned in the text",
  "lib/pipeline/stages/answer/extract-passages.ts": "the words that complement the answer in a sentence",
  "lib/pipeline/stages/answer/grouped-rows.ts": "the question's words, to find the measured column",
  "lib/pipeline/stages/answer/question-focus.ts": "the question's terms and padded text for matching headers",
  "lib/pipeline/stages/answer/table-route.ts": "the report question (operation, periods, line items) is read from the text",
  "lib/pipeline/stages/answer/unread-question.ts": "the question's content words, to tell which were not covered",
  "lib/pipeline/stages/select-evidence/classical.ts": "the question's words for matching evidence",
  "lib/pipeline/stages/formulate/guide.ts": "guide adaptation reads numbers, polarity and words of the question",
  "lib/pipeline/stages/formulate/lexicon.ts": "the question's terms for the vocabulary",
  "lib/pipeline/stages/formulate/relations.ts": "the question's lemmas for relation names",
  "lib/pipeline/stages/formulate/vocabulary.ts": "the question's terms for the vocabulary",
  "lib/pipeline/stages/formulate/graph/formulate-cypher.ts": "positions of the question's terms",
  "lib/pipeline/stages/formulate/graph/formulate-sparql.ts": "positions of the question's terms",
  "lib/pipeline/stages/formulate/sql/filter-picks.ts": "places, negations and cue offsets in the text",
  "lib/pipeline/stages/formulate/sql/formulate-sql.ts": "negation words and the question's coverage",
  "lib/pipeline/stages/formulate/sql/order-picks.ts": "the ordered attribute's wording",
  "lib/pipeline/stages/formulate/sql/schema-linking.ts": "positions of the question's terms",
  "lib/pipeline/stages/formulate/sql/select-picks.ts": "the asked projection's wording",
  "lib/pipeline/stages/formulate/sql/sql-picks.ts": "anti-joins, connectives and term positions",
};

export const QUESTION_TEXT_READERS = { ...BY_MEANING, ...BY_WORDING };
export const READS_BY_MEANING = Object.keys(BY_MEANING);
export const READS_BY_WORDING = Object.keys(BY_WORDING);

/** Where the Intent is made and defined: the only places that read the question by design. */
export const QUESTION_OWNERS = ["lib/pipeline/stages/understand/**", "lib/pipeline/contracts.ts"];
