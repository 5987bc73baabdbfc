// Types of tokenizer.mjs (plain JavaScript so worker threads load it without a compiler).
export interface Encoded {
  ids: number[];
  typeIds: number[];
}

export function longestFirst(a: number, b: number, budget: number): [number, number];

export class ModelTokenizer {
  constructor(tokenizerJson: object, tokenizerConfig: object);
  readonly padId: number;
  encode(text: string, maxTokens: number): Encoded;
  encodePair(a: string, b: string, maxTokens: number): Encoded;
}
