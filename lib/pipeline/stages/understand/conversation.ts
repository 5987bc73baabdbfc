import { isStopword } from "../../text";
import type { EntityMention, Intent, TimeCue } from "../../contracts";
import { looksLikePerson } from "./link-evidence";
import { isNamedMention } from "./linking";
import { PREPOSITIONS, WH_WORDS } from "./lexicon";
import type { Token } from "./tokens";

/** An earlier turn of the conversation, oldest first. */
export interface Turn {
  question: string;
  intent: Intent;
}

/** The question completed from the conversation. */
export interface Completion {
  completed: string;
  kind: "pronoun" | "ellipsis" | null;
  /** Character ranges of `completed` that came from earlier turns (not re-analysed for mentions). */
  carried: [number, number][];
  /** Mentions taken from earlier turns: fromContext, span null. */
  mentions: EntityMention[];
  /** 1 = the previous turn. */
  turnsBack: number | null;
}

export function selfContained(question: string): Completion {
  return { completed: question, kind: null, carried: [], mentions: [], turnsBack: null };
}

interface Segment {
  text: string;
  carried: boolean;
}

function join(segments: Segment[]): { completed: string; carried: [number, number][] } {
  let completed = "";
  const carried: [number, number][] = [];
  for (const s of segments) {
    if (s.carried && s.text) carried.push([completed.length, completed.length + s.text.length]);
    completed += s.text;
  }
  return { completed, carried };
}

const carry = (m: EntityMention): EntityMention => ({ ...m, span: null, fromContext: true });

// ---------------------------------------------------------------------------------------------
// Pronouns: "which teams did he play for?" → "which teams did Tom Brady play for?"

const PERSONAL = new Set(["he", "she", "him", "his", "her", "hers"]);
const NEUTER = new Set(["it", "its"]);
const PLURAL = new Set(["they", "them", "their", "theirs"]);
const DEMONSTRATIVE = new Set(["this", "that", "these", "those"]);
const POSSESSIVE = new Set(["his", "its", "their"]);
/** "this year", "that time" are time expressions, not references. */
const TIME_NOUNS = new Set([
  "year",
  "years",
  "month",
  "months",
  "week",
  "weeks",
  "quarter",
  "quarters",
  "day",
  "days",
  "time",
  "times",
  "period",
  "season",
  "morning",
  "evening",
  "decade",
]);

interface PronounUse {
  /** Token range replaced ("it", or "that company"). */
  from: number;
  to: number;
  possessive: boolean;
  want: "person" | "thing" | "plural";
}

function pronounUses(tokens: Token[], nameStarts: number[]): PronounUse[] {
  const uses: PronounUse[] = [];
  for (const t of tokens) {
    const w = t.lower;
    const next = tokens[t.i + 1];
    const adjacent = next && /^\s+$/.test(next.gapBefore);
    // A name earlier in the same question is the antecedent ("…Tom Brady… after he left").
    if (nameStarts.some((s) => s < t.start)) continue;
    const nounNext = !!adjacent && next.tags.has("Noun") && !next.tags.has("Pronoun") && !PREPOSITIONS.has(next.lower);
    if (PERSONAL.has(w)) {
      uses.push({ from: t.i, to: t.i + 1, possessive: POSSESSIVE.has(w) || (w === "her" && nounNext), want: "person" });
    } else if (NEUTER.has(w) || PLURAL.has(w)) {
      uses.push({ from: t.i, to: t.i + 1, possessive: POSSESSIVE.has(w), want: PLURAL.has(w) ? "plural" : "thing" });
    } else if (DEMONSTRATIVE.has(w)) {
      const prev = tokens[t.i - 1];
      if (nounNext && TIME_NOUNS.has(next.lower)) continue;
      // "products that are…" is a relative clause; "that" after a noun or before a verb is not a reference.
      if (prev && prev.tags.has("Noun") && !prev.tags.has("Pronoun")) continue;
      const atEnd = !next || !adjacent;
      if (nounNext) {
        let to = t.i + 2;
        while (
          to < tokens.length &&
          tokens[to].tags.has("Noun") &&
          /^\s+$/.test(tokens[to].gapBefore) &&
          !PREPOSITIONS.has(tokens[to].lower)
        )
          to++;
        uses.push({ from: t.i, to, possessive: false, want: w === "these" || w === "those" ? "plural" : "thing" });
      } else if (atEnd) uses.push({ from: t.i, to: t.i + 1, possessive: false, want: w === "these" || w === "those" ? "plural" : "thing" });
    }
  }
  return uses;
}

/** The most recent turn with named entities, and those entities. */
function antecedents(history: Turn[]): { named: EntityMention[]; turnsBack: number } | null {
  for (let k = history.length - 1; k >= 0; k--) {
    const named = history[k].intent.entities.filter((m) => isNamedMention(m));
    if (named.length) return { named, turnsBack: history.length - k };
  }
  return null;
}

function pick(named: EntityMention[], want: PronounUse["want"]): EntityMention[] {
  if (want === "plural") return named;
  const person = named.find((m) => m.links.some(looksLikePerson));
  if (want === "person") return [person ?? named[0]];
  return [named.find((m) => !m.links.some(looksLikePerson)) ?? named[0]];
}

export function completePronouns(question: string, tokens: Token[], nameStarts: number[], history: Turn[]): Completion | null {
  const source = antecedents(history);
  if (!source) return null;
  const uses = pronounUses(tokens, nameStarts);
  if (!uses.length) return null;
  const segments: Segment[] = [];
  const mentions = new Map<string, EntityMention>();
  let at = 0;
  for (const use of uses) {
    const chosen = pick(source.named, use.want);
    const start = tokens[use.from].start;
    segments.push({ text: question.slice(at, start), carried: false });
    chosen.forEach((m, k) => {
      if (k > 0) segments.push({ text: k === chosen.length - 1 ? " and " : ", ", carried: false });
      segments.push({ text: m.mention, carried: true });
      mentions.set(m.mention, carry(m));
    });
    if (use.possessive) segments.push({ text: "'s", carried: false });
    at = tokens[use.to - 1].end;
  }
  segments.push({ text: question.slice(at), carried: false });
  return { ...join(segments), kind: "pronoun", mentions: [...mentions.values()], turnsBack: source.turnsBack };
}

// ---------------------------------------------------------------------------------------------
// Ellipsis: "and in 2024?", "what about Germany?" → the previous question with the new parts.

const LEAD = /^\s*(?:(?:and|but|also|or|ok|okay|so|then|now)\b[\s,]*)+/i;
const ABOUT = /^(?:(?:what|how)\s+about|what\s+of|(?:the\s+)?same\s+(?:for|with|in))\b\s*/i;
const FRAGMENT_PREPOSITIONS = new Set([
  "in",
  "for",
  "from",
  "at",
  "on",
  "during",
  "since",
  "before",
  "after",
  "between",
  "by",
  "with",
  "without",
  "until",
  "to",
  "of",
]);

/**
 * Where the elliptic fragment of a follow-up starts, or null for a full question: "what about X",
 * "and …" without a question of its own, or a short verbless phrase opening with a preposition.
 */
export function ellipsisStart(question: string, tokens: Token[]): number | null {
  const lead = LEAD.exec(question);
  let offset = lead ? lead[0].length : 0;
  const about = ABOUT.exec(question.slice(offset));
  if (about) return offset + about[0].length;
  const rest = tokens.filter((t) => t.start >= offset);
  if (!rest.length) return null;
  const hasVerb = rest.some((t) => (t.tags.has("Verb") || t.tags.has("Copula")) && !PREPOSITIONS.has(t.lower));
  const opensQuestion = WH_WORDS.has(rest[0].lower) || rest[0].tags.has("Verb");
  if (opensQuestion || hasVerb) return null;
  if (lead && rest.length <= 8) return offset;
  if (FRAGMENT_PREPOSITIONS.has(rest[0].lower) && rest.length <= 6) {
    offset = rest[0].start;
    return offset;
  }
  return null;
}

interface FragmentMention {
  mention: string;
  start: number;
  end: number;
  links: EntityMention["links"];
  proper: boolean;
}

/** The KB "slot" a link fills (a column, a class, a predicate), to tell which earlier entity a new one replaces. */
function slot(l: EntityMention["links"][number]): string {
  const where = l.kind === "value" && /[="]/.test(l.ref) ? l.ref.split(/[="]/)[0] : (l.sourceObject ?? l.kind);
  return `${l.kbId}\u0000${where}`;
}

function locate(base: string, text: string, span: [number, number] | null): [number, number] | null {
  if (span && base.slice(span[0], span[1]) === text) return span;
  const at = base.toLowerCase().indexOf(text.toLowerCase());
  return at >= 0 ? [at, at + text.length] : null;
}

const COMPARATOR_WORDS = /^(?:before|after|since|until|till|in|during|on|from|between|by|through|as of|prior to)\s+(?:the\s+)?/i;

export function completeEllipsis(
  question: string,
  fragmentStart: number,
  fragmentMentions: FragmentMention[],
  fragmentCues: { cue: TimeCue; span: [number, number] }[],
  tokens: Token[],
  history: Turn[],
): Completion | null {
  let k = history.length - 1;
  while (k >= 0 && !history[k].intent.entities.length && !history[k].intent.relation) k--;
  if (k < 0) return null;
  const prev = history[k].intent;
  const base = prev.completed;
  const edits: { at: [number, number]; text: string }[] = [];
  const appended: string[] = [];
  const replaced = new Set<EntityMention>();
  const free = (at: [number, number]) => !edits.some((e) => at[0] < e.at[1] && e.at[0] < at[1]);

  const news = fragmentMentions.filter((m) => m.start >= fragmentStart && isNamedMention(m, m.proper));
  const targets = prev.entities.filter((m) => isNamedMention(m));
  for (const n of news) {
    const slots = new Set(n.links.map(slot));
    const open = targets.filter((t) => !replaced.has(t));
    const target = open.find((t) => t.links.some((l) => slots.has(slot(l)))) ?? (news.length === 1 ? open[0] : undefined);
    const at = target ? locate(base, target.mention, target.span) : null;
    if (target && at && free(at)) {
      edits.push({ at, text: n.mention });
      replaced.add(target);
    } else appended.push(n.mention);
  }

  const periods = prev.time.filter((c) => c.kind !== "ordinal");
  fragmentCues.forEach(({ cue }, i) => {
    const old = cue.kind === "ordinal" ? undefined : periods[i];
    const at = old ? locate(base, old.text, null) : null;
    if (old && at && free(at)) {
      // "and 2024?" keeps the earlier comparator: "…in 2025?" → "…in 2024?".
      const keep = COMPARATOR_WORDS.exec(old.text);
      edits.push({ at, text: COMPARATOR_WORDS.test(cue.text) || !keep ? cue.text : keep[0] + cue.text });
    } else appended.push(cue.text);
  });

  // Words that are neither a new entity nor a time ("what about revenue?") are added as they are.
  const covered = (t: Token) =>
    fragmentMentions.some((m) => t.start >= m.start && t.end <= m.end) ||
    fragmentCues.some(({ span }) => t.start >= span[0] && t.end <= span[1]);
  const rest = tokens.filter((t) => t.start >= fragmentStart && !covered(t) && !isStopword(t.lower, "en"));
  if (rest.length) appended.push(rest.map((t) => t.text).join(" "));

  const segments: Segment[] = [];
  let at = 0;
  for (const e of edits.sort((a, b) => a.at[0] - b.at[0])) {
    segments.push({ text: base.slice(at, e.at[0]), carried: true }, { text: e.text, carried: false });
    at = e.at[1];
  }
  const tail = base.slice(at);
  const closing = /[\s?.!]*$/.exec(tail)?.[0] ?? "";
  segments.push({ text: tail.slice(0, tail.length - closing.length), carried: true });
  for (const a of appended) segments.push({ text: " ", carried: false }, { text: a, carried: false });
  segments.push({ text: closing.trim() || (question.trim().endsWith("?") ? "?" : ""), carried: false });

  return {
    ...join(segments),
    kind: "ellipsis",
    mentions: prev.entities.filter((m) => !replaced.has(m)).map(carry),
    turnsBack: history.length - k,
  };
}
