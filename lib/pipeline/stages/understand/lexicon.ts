import type { AnswerType } from "../../contracts";

/**
 * The small closed-class vocabularies the linguistic analysis relies on. English only: a question in
 * another language is still processed (entities, time cues) but its form is not analysed.
 */
const set = (words: string) => new Set(words.trim().split(/\s+/));

export const WH_WORDS = set("who whom whose when where why which what how");
export const AUXILIARIES = set(
  "is are was were am be been being do does did has have had can could will would should shall may might must",
);
export const COPULAS = set("is are was were am be been being");
/** Verbs that carry no relation of their own ("did he have", "do we get"). */
export const LIGHT_VERBS = set("do does did done doing has have had having get gets got exist exists existed");
export const PREPOSITIONS = set(
  "of in on at by for from to with into about as under over after before between during through within without near across against along among toward towards upon",
);
/** Prepositions that close a relation phrase ("acted in", "made by", "play for"). */
export const PARTICLES = set("in on at by for from to with into about as under over of");
export const DETERMINERS = set("the a an this that these those all every each any some its their his her our my your");
/** Imperative openings of requests: "List the...", "Show me...", "Name all...". */
export const IMPERATIVES = set(
  "list name show give find tell return display get count enumerate identify provide retrieve fetch compute calculate",
);
export const LIST_IMPERATIVES = set("list enumerate");

/** The answer type a head noun asks for ("which city" → location). Singular forms; plurals are folded. */
const HEAD_NOUN_TYPES: [AnswerType[], string][] = [
  [
    ["person"],
    `person people man woman actor actress director author writer player singer employee manager ceo cfo cto executive founder
     president student teacher artist musician scientist member worker owner chairman chairwoman chair leader officer coach
     driver pilot doctor physician patient engineer researcher professor composer producer winner candidate child children
     husband wife father mother son daughter spouse partner star host scorer captain`,
  ],
  [
    ["organisation"],
    `company organisation organization team club manufacturer supplier subsidiary firm university school college agency band
     airline bank brand publisher studio business corporation vendor retailer institution party network channel department
     maker distributor competitor sponsor employer parent`,
  ],
  [
    ["location"],
    `city country region place location state town continent address capital nation province county village destination
     headquarters hq venue airport station port district territory street neighbourhood neighborhood birthplace`,
  ],
  [["date"], "year date day month time decade century quarter period week birthday deadline"],
  [
    ["money", "number"],
    `price cost revenue sales income salary wage budget fee profit earnings turnover expense spend spending payment amount
     worth value valuation gross pay payroll charge fare rent tax dividend ebitda diem allowance cap`,
  ],
  [["percent", "number"], "percentage percent proportion share rate ratio margin growth fraction"],
  [["count"], "number count"],
  [
    ["number"],
    `age weight height length size population quantity distance duration score rating speed capacity temperature volume depth
     width area units points goals grade rank ranking`,
  ],
];

const NOUN_TYPE = new Map<string, AnswerType[]>();
for (const [types, words] of HEAD_NOUN_TYPES) for (const w of words.trim().split(/\s+/)) if (!NOUN_TYPE.has(w)) NOUN_TYPE.set(w, types);

/** Singular of an English noun, good enough for the closed lists here. */
export function singular(word: string): string {
  const w = word.toLowerCase();
  if (w === "people" || w === "children") return w;
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ches|shes|sses|xes)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !w.endsWith("ss") && w.length > 3) return w.slice(0, -1);
  return w;
}

export function isPlural(word: string): boolean {
  const w = word.toLowerCase();
  return w === "people" || w === "children" || (singular(w) !== w && !w.endsWith("ss"));
}

export function answerTypesOfNoun(word: string): AnswerType[] | null {
  const w = word.toLowerCase();
  return NOUN_TYPE.get(w) ?? NOUN_TYPE.get(singular(w)) ?? null;
}

export const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  fifty: 50,
  hundred: 100,
};

/** Words before "one" that make it a count ("more than one", "at least one", "top one"), not a pronoun ("the one with …"). */
const COUNTING_ONE = new Set(["than", "least", "most", "exactly", "top", "first", "last"]);

/**
 * The text with its number words (NUMBER_WORDS) written as digits, each padded with spaces to the
 * word's length so every offset in the text still holds ("at least two cars" → "at least 2   cars").
 * "one" becomes 1 only after a counting word (COUNTING_ONE): as often it is a pronoun.
 */
export function numberWordsAsDigits(text: string): string {
  let previous = "";
  return text.replace(/\p{L}+/gu, (word: string) => {
    const before = previous;
    previous = word.toLowerCase();
    const value = NUMBER_WORDS[previous];
    if (value === undefined || (value === 1 && !COUNTING_ONE.has(before))) return word;
    const digits = String(value);
    return digits.length <= word.length ? digits.padEnd(word.length, " ") : word;
  });
}

export function parseSmallNumber(word: string): number | null {
  if (/^\d{1,4}$/.test(word)) return Number(word);
  return NUMBER_WORDS[word.toLowerCase()] ?? null;
}

export const ORDINAL_WORDS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  "1st": 1,
  "2nd": 2,
  "3rd": 3,
  "4th": 4,
  "5th": 5,
  "6th": 6,
  "7th": 7,
  "8th": 8,
  "9th": 9,
  "10th": 10,
  last: -1,
  latest: -1,
  newest: -1,
  earliest: 1,
};

/** Words in an entity-index ref or source object that say "this is a place". */
export const PLACE_WORDS = set(
  "city cities country countries region regions location locations place places state states province provinces continent continents town towns address nation nations county counties capital district territory airport venue geo area areas",
);
