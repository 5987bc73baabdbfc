import { marked, type Token, type Tokens } from "marked";
import { checkMarkdownDepth } from "./limits";
import type { ParsedDocument, ParsedTable, TextBlock } from "./types";

/** Plain text of inline markdown (bold, links, code spans): what a reader sees, not the markup. */
function inlineText(tokens: Token[] | undefined, fallback: string): string {
  if (!tokens || tokens.length === 0) return fallback;
  return tokens
    .map((t) => {
      if (t.type === "br") return " ";
      if (t.type === "image") return (t as Tokens.Image).text;
      if ("tokens" in t && Array.isArray(t.tokens) && t.tokens.length > 0) return inlineText(t.tokens, "");
      return "text" in t && typeof t.text === "string" ? t.text : "";
    })
    .join("");
}

/** A short paragraph right above a table that names it ("Table 2: Revenue by region", "Revenue by region:"). */
function captionLike(text: string): boolean {
  return text.length <= 160 && (/^table\b/i.test(text) || /:\s*$/.test(text));
}

/**
 * Markdown through marked's lexer: headings become the section of the text below them, pipe tables
 * become tables (caption from a caption-like paragraph just above, else none), lists and code stay text.
 */
export function parseMarkdown(source: string, fallbackTitle: string): ParsedDocument {
  // marked re-lexes each nested list's text: 1,000 levels took 24 s of CPU, 8,000 exhausted the heap.
  checkMarkdownDepth(source);
  const tokens = marked.lexer(source);
  const blocks: TextBlock[] = [];
  const tables: ParsedTable[] = [];
  let title: string | undefined;
  let section: string | undefined;
  let lastParagraph: { text: string; index: number } | undefined;

  const walk = (list: Token[]) => {
    for (const token of list) {
      switch (token.type) {
        case "heading": {
          const heading = inlineText((token as Tokens.Heading).tokens, token.text);
          if ((token as Tokens.Heading).depth === 1 && title === undefined) {
            // The first H1 names the document; the text under it has no section of its own.
            title = heading;
            section = undefined;
          } else {
            section = heading;
          }
          lastParagraph = undefined;
          break;
        }
        case "paragraph":
        case "text": {
          const text = inlineText((token as Tokens.Paragraph).tokens, token.text);
          blocks.push({ text, section });
          lastParagraph = { text: text.trim(), index: blocks.length - 1 };
          break;
        }
        case "table": {
          const t = token as Tokens.Table;
          const caption =
            lastParagraph && lastParagraph.index === blocks.length - 1 && captionLike(lastParagraph.text)
              ? lastParagraph.text.replace(/:\s*$/, "")
              : undefined;
          tables.push({
            caption,
            section,
            header: t.header.map((c) => inlineText(c.tokens, c.text)),
            rows: t.rows.map((r) => r.map((c) => inlineText(c.tokens, c.text))),
            beforeBlock: blocks.length,
          });
          lastParagraph = undefined;
          break;
        }
        case "list":
          for (const item of (token as Tokens.List).items) walk(item.tokens);
          lastParagraph = undefined;
          break;
        case "blockquote":
          walk((token as Tokens.Blockquote).tokens);
          break;
        case "code":
          blocks.push({ text: (token as Tokens.Code).text, section });
          lastParagraph = undefined;
          break;
        default:
          // space, hr, raw html, definitions: no prose of their own.
          break;
      }
    }
  };
  walk(tokens);
  return { title: title ?? fallbackTitle, blocks, tables };
}
