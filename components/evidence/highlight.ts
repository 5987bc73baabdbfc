import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";
import sql from "highlight.js/lib/languages/sql";

/**
 * Syntax highlighting of the native queries behind evidence. highlight.js ships SQL; SPARQL and Cypher
 * get small grammars of their own (keywords, variables, IRIs / prefixed names, labels, strings, numbers,
 * comments), enough to read a generated query at a glance.
 */

const sparql: LanguageFn = (h) => ({
  name: "SPARQL",
  case_insensitive: true,
  keywords: {
    $pattern: /[A-Za-z_]+/,
    keyword:
      "select construct describe ask where prefix base distinct reduced from named optional filter union minus graph service bind values limit offset order by asc desc group having as not exists in a",
    built_in:
      "count sum min max avg sample group_concat str lang langmatches datatype bound iri uri bnode rand abs ceil floor round concat strlen ucase lcase encode_for_uri contains strstarts strends strbefore strafter year month day hours minutes seconds timezone tz now regex replace sameterm isiri isuri isblank isliteral isnumeric coalesce if",
    literal: "true false",
  },
  contains: [
    h.HASH_COMMENT_MODE,
    { scope: "variable", match: /[?$][A-Za-z_][\w]*/ },
    { scope: "link", begin: /</, end: />/, illegal: /\s/ },
    { scope: "string", variants: [h.QUOTE_STRING_MODE, h.APOS_STRING_MODE], contains: [h.BACKSLASH_ESCAPE] },
    { scope: "meta", match: /@[a-zA-Z]+(-[a-zA-Z0-9]+)*/ },
    { scope: "symbol", match: /[A-Za-z][\w-]*:(?:[\w-]+)?|:[\w-]+/ },
    h.C_NUMBER_MODE,
  ],
});

const cypher: LanguageFn = (h) => ({
  name: "Cypher",
  case_insensitive: true,
  keywords: {
    $pattern: /[A-Za-z_]+/,
    keyword:
      "match optional where return with unwind order by skip limit as and or xor not distinct call yield case when then else end in is null exists union all asc desc ascending descending starts ends contains",
    built_in:
      "count sum min max avg collect size length nodes relationships labels type id elementid keys properties coalesce head last tail tostring tointeger tofloat date datetime",
    literal: "true false",
  },
  contains: [
    h.C_LINE_COMMENT_MODE,
    h.C_BLOCK_COMMENT_MODE,
    { scope: "string", variants: [h.QUOTE_STRING_MODE, h.APOS_STRING_MODE], contains: [h.BACKSLASH_ESCAPE] },
    { scope: "variable", match: /\$[A-Za-z_]\w*/ },
    { scope: "type", match: /:`[^`]+`|:[A-Za-z_]\w*/ },
    { scope: "punctuation", match: /-\[|\]->|<-\[|\]-|->|<-/ },
    h.C_NUMBER_MODE,
  ],
});

hljs.registerLanguage("sql", sql);
hljs.registerLanguage("sparql", sparql);
hljs.registerLanguage("cypher", cypher);

export const QUERY_LANGUAGE_LABELS: Record<string, string> = { sql: "SQL", sparql: "SPARQL", cypher: "Cypher", search: "Search text" };

/** Highlighted HTML for a query (highlight.js escapes the text), or null where there is no grammar (search text). */
export function highlightQuery(text: string, language: string): string | null {
  if (!hljs.getLanguage(language)) return null;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
