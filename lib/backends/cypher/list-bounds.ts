import { QueryRejectedError } from "../errors";

/**
 * Neo4j tracks the memory of its operators (collect, sort, distinct …) against the transaction's limit
 * (db.memory.transaction.max), but not the values an expression builds: `[x IN range(1, 200000000) |
 * toString(x)]` or `reduce(s = 'x', i IN range(1, 40) | s + s)` fill the heap until the JVM exits, and
 * every later graph query fails until the server is restarted. EXPLAIN cannot say how large they get (it
 * lifts every literal into an $autoparameter), so the query text is read for the two generators of
 * unbounded values that need no data:
 *
 * - range() as a value (not the source of UNWIND, which streams): its length must be computable from
 *   literals and parameters (or bounded by the data, as range(0, size(list) - 1) is) and at most
 *   MAX_RANGE_VALUES;
 * - reduce(): a body that adds its accumulator to itself (s + s, l + x + l) doubles it at every step.
 *
 * The reading is a tokenizer for Cypher's strings, comments and quoted names, so a "range(" inside a
 * string refuses nothing; anything it cannot read refuses the query.
 */

export const MAX_RANGE_VALUES = 100_000;

type Tok = { kind: "name" | "number" | "param" | "string" | "op" | "open" | "close" | "comma" | "pipe" | "other"; text: string };

function tokenize(q: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "/" && q[i + 1] === "/") {
      const end = q.indexOf("\n", i);
      i = end < 0 ? q.length : end + 1;
      continue;
    }
    if (c === "/" && q[i + 1] === "*") {
      const end = q.indexOf("*/", i + 2);
      if (end < 0) throw new QueryRejectedError("the query has a comment that is never closed", q);
      i = end + 2;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < q.length && q[j] !== c) j += q[j] === "\\" ? 2 : 1;
      if (j >= q.length) throw new QueryRejectedError("the query has a string that is never closed", q);
      out.push({ kind: "string", text: q.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    if (c === "`") {
      let j = i + 1;
      while (j < q.length && !(q[j] === "`" && q[j + 1] !== "`")) j += q[j] === "`" ? 2 : 1;
      out.push({ kind: "name", text: q.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    const num = /^(0x[0-9a-fA-F_]+|0o[0-7_]+|[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9]+)?)/.exec(q.slice(i));
    if (num) {
      out.push({ kind: "number", text: num[0] });
      i += num[0].length;
      continue;
    }
    const name = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(q.slice(i));
    if (name) {
      out.push({ kind: "name", text: name[0] });
      i += name[0].length;
      continue;
    }
    const param = /^\$[\p{L}\p{N}_]+/u.exec(q.slice(i));
    if (param) {
      out.push({ kind: "param", text: param[0].slice(1) });
      i += param[0].length;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") out.push({ kind: "open", text: c });
    else if (c === ")" || c === "]" || c === "}") out.push({ kind: "close", text: c });
    else if (c === ",") out.push({ kind: "comma", text: c });
    else if (c === "|") out.push({ kind: "pipe", text: c });
    else if ("+-*/%^=<>!.:;".includes(c)) out.push({ kind: "op", text: c });
    else out.push({ kind: "other", text: c });
    i++;
  }
  return out;
}

/** The tokens of a call's arguments from the "(" at `open`, split at top-level commas, and the index of its ")". */
function callArguments(toks: Tok[], open: number): { args: Tok[][]; close: number } {
  const args: Tok[][] = [[]];
  let depth = 0;
  for (let k = open; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.kind === "open") {
      depth++;
      if (depth === 1) continue;
    } else if (t.kind === "close") {
      depth--;
      if (depth === 0) return { args: args[0]!.length === 0 && args.length === 1 ? [] : args, close: k };
    } else if (t.kind === "comma" && depth === 1) {
      args.push([]);
      continue;
    }
    args[args.length - 1]!.push(t);
  }
  return { args, close: toks.length };
}

function integerValue(text: string): number | null {
  const clean = text.replaceAll("_", "");
  if (/^0x/i.test(clean)) return Number.parseInt(clean.slice(2), 16);
  if (/^0o/i.test(clean)) return Number.parseInt(clean.slice(2), 8);
  return /^[0-9]+$/.test(clean) ? Number(clean) : null;
}

/**
 * An argument of range(): a number when made of integer literals, integer parameters, + - * and
 * parentheses; "data" when its only other parts are size(…) or length(…) of something (a list that already
 * exists bounds it); null otherwise.
 */
function rangeBound(arg: Tok[], params: Record<string, unknown>): number | "data" | null {
  let expr = "";
  let data = false;
  for (let k = 0; k < arg.length; k++) {
    const t = arg[k]!;
    if (t.kind === "name" && /^(size|length)$/i.test(t.text) && arg[k + 1]?.kind === "open") {
      const { close } = callArguments(arg, k + 1);
      data = true;
      expr += "0";
      k = close;
      continue;
    }
    if (t.kind === "number") {
      const v = integerValue(t.text);
      if (v === null) return null;
      expr += String(v);
    } else if (t.kind === "param") {
      const v = params[t.text];
      const n = typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : (v as { toNumber?: () => number })?.toNumber?.();
      if (typeof n !== "number" || !Number.isInteger(n)) return null;
      expr += `(${n})`;
    } else if (t.kind === "op" && "+-*".includes(t.text)) {
      if (data && t.text === "*") return null;
      expr += t.text;
    } else if (t.kind === "open" && t.text === "(") expr += "(";
    else if (t.kind === "close" && t.text === ")") expr += ")";
    else return null;
  }
  if (data) return /\*/.test(expr) ? null : "data";
  return expr.length > 200 ? null : evaluate(expr);
}

/** Integer arithmetic over digits, + - * and parentheses; null when the text is anything else. */
function evaluate(expr: string): number | null {
  const text = expr.replaceAll(" ", "");
  let i = 0;
  const atom = (): number | null => {
    if (text[i] === "-") {
      i++;
      const v = atom();
      return v === null ? null : -v;
    }
    if (text[i] === "+") {
      i++;
      return atom();
    }
    if (text[i] === "(") {
      i++;
      const v = sum();
      if (text[i] !== ")") return null;
      i++;
      return v;
    }
    const m = /^[0-9]+/.exec(text.slice(i));
    if (!m) return null;
    i += m[0].length;
    return Number(m[0]);
  };
  const product = (): number | null => {
    let v = atom();
    while (v !== null && text[i] === "*") {
      i++;
      const r = atom();
      v = r === null ? null : v * r;
    }
    return v;
  };
  const sum = (): number | null => {
    let v = product();
    while (v !== null && (text[i] === "+" || text[i] === "-")) {
      const op = text[i++];
      const r = product();
      v = r === null ? null : op === "+" ? v + r : v - r;
    }
    return v;
  };
  const v = sum();
  return v !== null && i === text.length && Number.isFinite(v) ? v : null;
}

function n(v: number): string {
  return Math.round(v).toLocaleString("en");
}

/**
 * Refuses (QueryRejectedError) what would build an unbounded value without reading any data. `planned`
 * says whether Neo4j's plan calls range() or reduce(): a call the plan has and the text reading did not
 * find refuses the query.
 */
export function checkListBounds(
  query: string,
  params: Record<string, unknown> = {},
  planned: { range: boolean; reduce: boolean } = { range: false, reduce: false },
): void {
  const refuse = (reason: string): never => {
    throw new QueryRejectedError(reason, query);
  };
  const toks = tokenize(query);
  const called = (fn: string) =>
    toks.some((t, k) => t.kind === "name" && t.text.toLowerCase() === fn && toks[k + 1]?.text === "(" && toks[k - 1]?.text !== ".");
  for (const fn of ["range", "reduce"] as const)
    if (planned[fn] && !called(fn)) refuse(`Neo4j's plan calls ${fn}(), which Mosaic could not find in the query to check`);
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.kind !== "name" || toks[k + 1]?.kind !== "open" || toks[k + 1]!.text !== "(") continue;
    // A property or a namespaced function (x.range(…)) is not this function.
    if (toks[k - 1]?.kind === "op" && toks[k - 1]!.text === ".") continue;
    const fn = t.text.toLowerCase();
    if (fn === "range") {
      // UNWIND range(…) streams its values one row at a time (the transaction's deadline bounds it); a list is
      // built only where the range is a value: in a list comprehension, reduce(), size(), RETURN …
      if (toks[k - 1]?.kind === "name" && /^unwind$/i.test(toks[k - 1]!.text)) continue;
      const { args } = callArguments(toks, k + 1);
      if (args.length < 2 || args.length > 3) continue; // Neo4j refuses the call itself.
      const bounds = args.map((a) => rangeBound(a, params));
      if (bounds.some((b) => b === null))
        refuse(
          `range() may only be given whole numbers, parameters or sizes of lists (size(…)) as bounds, so that its length (at most ${n(MAX_RANGE_VALUES)} values) can be checked`,
        );
      if (bounds.every((b) => typeof b === "number")) {
        const [start, end, step = 1] = bounds as number[];
        const length = step === 0 ? 0 : Math.max(0, Math.floor((end! - start!) / step) + 1);
        if (length > MAX_RANGE_VALUES)
          refuse(
            `range() would build a list of ${n(length)} values, and at most ${n(MAX_RANGE_VALUES)} are allowed (the graph server's memory is shared)`,
          );
      }
    } else if (fn === "reduce") {
      const { args } = callArguments(toks, k + 1);
      // reduce(acc = init, x IN list | body): the accumulator is the first name; the body follows the top-level |.
      const acc = args[0]?.[0];
      const tail = args[args.length - 1] ?? [];
      let depth = 0;
      let bar = -1;
      for (let b = 0; b < tail.length && bar < 0; b++) {
        const x = tail[b]!;
        if (x.kind === "open") depth++;
        else if (x.kind === "close") depth--;
        else if (x.kind === "pipe" && depth === 0) bar = b;
      }
      if (!acc || acc.kind !== "name" || args.length < 2 || bar < 0) continue;
      const body = tail.slice(bar + 1);
      // Within one term of a + chain (not split by a comparison, a CASE branch or an argument), count the accumulator.
      let uses = 0;
      for (let b = 0; b < body.length; b++) {
        const x = body[b]!;
        if (x.kind === "name" && /^(CASE|WHEN|THEN|ELSE|END|AND|OR|XOR|NOT|IS|IN)$/i.test(x.text)) uses = 0;
        else if ((x.kind === "op" && "=<>".includes(x.text)) || x.kind === "comma") uses = 0;
        else if (x.kind === "name" && x.text === acc.text && !(body[b - 1]?.kind === "op" && body[b - 1]!.text === ".")) uses++;
        if (uses >= 2)
          refuse(
            `reduce() adds its accumulator ${acc.text} to itself, which doubles the value at every step; build the value without repeating ${acc.text}`,
          );
      }
    }
  }
}
