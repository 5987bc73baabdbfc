import { strategyInWords } from "../../strategy-words";
import type { Feedback } from "../../contracts";

/**
 * What the next round will do because of a feedback, in words for the refinement path shown to the
 * user. Mirrors how formulate (stages/formulate/feedback.ts) and source selection act on each type.
 */
export function describeChange(feedback: Feedback): string {
  const t = feedback.target;
  switch (feedback.type) {
    case "wrong_entity":
      return t ? `Link '${t}' to its next-best match in the sources and query again` : "Use the next-best entity links and query again";
    case "missing_entity":
      return t ? `Look '${t}' up by its name in the sources and query again` : "Look the question's entities up by name and query again";
    case "wrong_relation":
      return t
        ? `Match '${t}' to the next candidate column, predicate or relationship and query again`
        : "Try the next candidate relation and query again";
    case "missing_relation":
      return t ? `Drop the relation filter '${t}' and search again` : "Drop the relation filter and search again";
    case "empty_result":
      return `Relax the filters (partial matches, no time filter, wider neighbourhoods)${t ? ` on ${t}` : ""} and query again`;
    case "no_intersection":
      return t
        ? `Retrieve ${t
            .split(" & ")
            .map((m) => `'${m}'`)
            .join(" and ")} separately instead of together`
        : "Retrieve the entities separately instead of together";
    case "wrong_source":
      return t ? `Leave out '${t}' and select other sources` : "Select other sources";
    case "wrong_module":
      return t ? `Answer without the ${strategyInWords(t)}` : "Answer with another kind of query";
    case "missing_negation":
      return t
        ? `Read 'not ${t}' as a negation (a wider window, related rows excluded) and query again`
        : "Read the question's negation and query again";
    case "missing_grouping":
      return t ? `Group the answer by '${t}' and query again` : "Group the answer as asked and query again";
    case "missing_filter":
      return t ? `Filter on '${t}' by its name in the sources and query again` : "Filter on the named values and query again";
    case "next_batch": {
      const page = Number(t);
      return Number.isInteger(page) && page >= 1 ? `Fetch the next batch of results (page ${page + 1})` : "Fetch the next batch of results";
    }
  }
}
