"use client";

import { useMemo } from "react";
import { searchTextForPeople } from "./search-words";
import { CopyButton } from "./copy-button";
import { QUERY_LANGUAGE_LABELS, highlightQuery } from "./highlight";
import type { Scalar } from "@/lib/backends/types";
import { QueryParamList } from "./query-param-list";
import styles from "./query-code.module.css";

/**
 * The native query that produced a piece of evidence, highlighted, with a Copy button. A search text
 * shows the words as people wrote them, without the stems the pipeline adds (see searchTextForPeople).
 */
export function QueryCode({
  text: query,
  language,
  caption = "Native query",
  params,
}: {
  text: string;
  language: string;
  caption?: string;
  /** The values its parameters were bound to: the text alone does not show what it filtered on. */
  params?: Record<string, Scalar>;
}) {
  const text = useMemo(() => (language === "search" ? searchTextForPeople(query) : query), [query, language]);
  const html = useMemo(() => highlightQuery(text, language), [text, language]);
  const label = QUERY_LANGUAGE_LABELS[language] ?? language;
  return (
    <figure className="overflow-hidden rounded-md bg-slate-900 text-slate-100" data-testid="native-query">
      <figcaption className="flex items-center justify-between gap-2 border-b border-slate-700 px-3 py-1.5 text-xs">
        <span>
          {caption} ·{" "}
          <span className="font-semibold" data-testid="query-language">
            {label}
          </span>
        </span>
        <CopyButton text={text} label={`Copy the ${label} query`} />
      </figcaption>
      <pre className={`max-h-72 overflow-auto px-3 py-2 text-xs leading-relaxed ${styles.code}`}>
        {html === null ? <code>{text}</code> : <code className={`hljs language-${language}`} dangerouslySetInnerHTML={{ __html: html }} />}
      </pre>
      <QueryParamList params={params} language={language} tone="dark" testId="query-params" />
    </figure>
  );
}
