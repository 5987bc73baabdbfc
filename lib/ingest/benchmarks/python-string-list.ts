/**
 * Reads the printed form of a Python/NumPy list of strings, as SciFact's corpus.csv stores abstracts:
 * `['First sentence.'\n "It's the second."]`. NumPy prints elements separated by whitespace only, Python
 * by commas; both are accepted. Each element is a Python string literal ('…' or "…", optional r/u
 * prefix) with Python's escapes. No JavaScript or Python evaluation is involved: it is data.
 */
export class PythonListSyntaxError extends Error {
  constructor(message: string, position: number) {
    super(`${message} at character ${position}`);
    this.name = "PythonListSyntaxError";
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
};

export function parsePythonStringList(source: string): string[] {
  let i = 0;
  const skipSeparators = () => {
    while (i < source.length && /[\s,]/.test(source[i])) i++;
  };
  while (i < source.length && /\s/.test(source[i])) i++;
  if (source[i] !== "[") throw new PythonListSyntaxError("expected '['", i);
  i++;
  const items: string[] = [];
  for (;;) {
    skipSeparators();
    if (i >= source.length) throw new PythonListSyntaxError("missing ']'", i);
    if (source[i] === "]") {
      i++;
      break;
    }
    let raw = false;
    while (/[rRuU]/.test(source[i] ?? "")) {
      if (/[rR]/.test(source[i])) raw = true;
      i++;
    }
    const quote = source[i];
    if (quote !== "'" && quote !== '"') throw new PythonListSyntaxError(`expected a string literal, found ${JSON.stringify(source[i])}`, i);
    const [value, next] = readLiteral(source, i + 1, quote, raw);
    items.push(value);
    i = next;
  }
  if (source.slice(i).trim()) throw new PythonListSyntaxError("unexpected text after ']'", i);
  return items;
}

function readLiteral(source: string, from: number, quote: string, raw: boolean): [string, number] {
  let out = "";
  let i = from;
  while (i < source.length) {
    // Copy the plain run up to the next quote or backslash in one slice (abstracts are long, escapes rare).
    const q = source.indexOf(quote, i);
    const b = source.indexOf("\\", i);
    const stop = b !== -1 && (q === -1 || b < q) ? b : q;
    if (stop === -1) break;
    out += source.slice(i, stop);
    i = stop;
    const ch = source[i];
    if (ch === quote) return [out, i + 1];
    const next = source[i + 1];
    if (next === undefined) break;
    if (raw) {
      // In raw strings a backslash only protects the quote from ending the literal; both characters stay.
      out += ch + next;
      i += 2;
      continue;
    }
    if (next in SIMPLE_ESCAPES && !(next === "0" && /[0-7]/.test(source[i + 2] ?? ""))) {
      out += SIMPLE_ESCAPES[next];
      i += 2;
      continue;
    }
    if (next === "\n") {
      i += 2; // line continuation
      continue;
    }
    const hex = { x: 2, u: 4, U: 8 }[next as "x" | "u" | "U"];
    if (hex) {
      const digits = source.slice(i + 2, i + 2 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) throw new PythonListSyntaxError(`bad \\${next} escape`, i);
      out += String.fromCodePoint(parseInt(digits, 16));
      i += 2 + hex;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(source.slice(i + 1, i + 4));
    if (octal) {
      out += String.fromCodePoint(parseInt(octal[0], 8));
      i += 1 + octal[0].length;
      continue;
    }
    // Python keeps unknown escapes such as "\d" as they are.
    out += ch + next;
    i += 2;
  }
  throw new PythonListSyntaxError("unterminated string literal", from - 1);
}
