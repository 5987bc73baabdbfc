/** Types of question-readers.config.mjs (read by eslint.config.mjs and tests/unit/question-readers.test.ts). */
export declare const QUESTION_TEXT_READERS: Record<string, string>;
export declare const READS_BY_MEANING: string[];
export declare const READS_BY_WORDING: string[];
export declare const QUESTION_OWNERS: string[];
