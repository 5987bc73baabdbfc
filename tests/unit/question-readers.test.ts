import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { QUESTION_TEXT_READERS, READS_BY_MEANING, READS_BY_WORDING } from "../../question-readers.config.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const READ = /\bintent\)?\.(?:completed|question)\b|\{[^}]*\b(?:completed|question)\b[^}]*\}\s*=\s*intent\b/;

/** "One reader of the question" (question-readers.config.mjs, issue 27): what lint allows and what it refuses. */
describe("one reader of the question", () => {
  it("lists only files that still read the question's text, each with a reason, so the list only shrinks", () => {
    const stale = Object.keys(QUESTION_TEXT_READERS).filter((file) => {
      const full = path.join(ROOT, file);
      return !existsSync(full) || !READ.test(readFileSync(full, "utf8"));
    });
    expect(stale, "these no longer read the question: remove them from question-readers.config.mjs").toEqual([]);
    for (const reason of Object.values(QUESTION_TEXT_READERS)) expect(reason.length).toBeGreaterThan(10);
    expect(READS_BY_MEANING.filter((f) => READS_BY_WORDING.includes(f))).toEqual([]);
  });

  it(
    "lint refuses a new read of the question after understand, in each written form, and allows it in understand",
    { timeout: 120_000 },
    async () => {
      const eslint = new ESLint({ cwd: ROOT, ignore: false });
      const probe = [
        `import type { Intent } from "../../contracts";`,
        `export const a = (intent: Intent) => intent.completed;`,
        `export const b = (input: { intent: Intent }) => input.intent.question;`,
        `export function c(intent: Intent) {`,
        `  const { completed } = intent;`,
        `  return completed;`,
        `}`,
        ``,
      ].join("\n");
      const [later] = await eslint.lintText(probe, { filePath: path.join(ROOT, "lib/pipeline/stages/answer/probe.ts") });
      const refused = later.messages.filter((m) => m.ruleId === "no-restricted-syntax");
      expect(refused.map((m) => m.line)).toEqual([2, 3, 5]);
      expect(refused[0].message).toMatch(/read the Intent/);
      const [understand] = await eslint.lintText(probe, { filePath: path.join(ROOT, "lib/pipeline/stages/understand/probe.ts") });
      expect(understand.messages.filter((m) => m.ruleId === "no-restricted-syntax")).toEqual([]);
    },
  );
});
