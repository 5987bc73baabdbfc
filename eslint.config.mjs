import path from "node:path";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import { ALLOWED_UPWARD, LAYERS } from "./layers.config.mjs";
import { QUESTION_OWNERS, QUESTION_TEXT_READERS } from "./question-readers.config.mjs";

const root = import.meta.dirname;
// no-restricted-paths wants every path of a zone to be a glob: a file becomes "name.{ts,tsx}", a folder "folder/**".
const glob = (p) => (/\.(ts|tsx|mjs)$/.test(p) ? p.replace(/\.(ts|tsx|mjs)$/, ".{ts,tsx}") : `${p}/**`);

/**
 * The layer order (layers.config.mjs): every layer's files may not import from any layer above it.
 * One zone per (layer, higher layer) pair, so the message names both; the allowed upward imports are
 * the zone's exceptions.
 */
function layerZones() {
  const zones = [];
  LAYERS.forEach((layer, i) => {
    for (const higher of LAYERS.slice(0, i)) {
      const except = ALLOWED_UPWARD.filter(
        (a) => layer.paths.some((p) => a.from.startsWith(p)) && higher.paths.some((p) => a.to.startsWith(p)),
      ).map((a) => path.join(root, a.to));
      zones.push({
        target: layer.paths.map(glob),
        from: higher.paths.map(glob),
        ...(except.length ? { except } : {}),
        message: `${layer.name} may not import from ${higher.name} (the layer order is in layers.config.mjs and the README's Architecture section).`,
      });
    }
  });
  return zones;
}

/** The question's text, read off an intent (`intent.completed`, `input.intent.question`, `const { completed } = intent`). */
const QUESTION_TEXT = "/^(completed|question)$/";
const ONE_READER =
  "After understand, read the Intent (entities and spans, periods, constructs, answerForm), not the question's text: see question-readers.config.mjs.";
const questionTextReads = [
  `MemberExpression[object.name='intent'][property.name=${QUESTION_TEXT}]`,
  `MemberExpression[object.property.name='intent'][property.name=${QUESTION_TEXT}]`,
  `VariableDeclarator[init.name='intent'] > ObjectPattern > Property[key.name=${QUESTION_TEXT}]`,
].map((selector) => ({ selector, message: ONE_READER }));

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".data/**",
      "lib/db/generated/**",
      "next-env.d.ts",
      "tmp/**",
      "test-results/**",
      "tests/fixtures/lint-cycle/**",
    ],
  },
  {
    files: ["**/*.{ts,tsx,mjs}"],
    settings: { "import/resolver": { typescript: { project: path.join(root, "tsconfig.json") }, node: true } },
    rules: {
      // Type-only cycles are caught too, by tests/unit/architecture.test.ts (this rule skips `import type`).
      "import/no-cycle": ["error", { ignoreExternal: true }],
      "import/no-restricted-paths": ["error", { basePath: root, zones: layerZones() }],
    },
  },
  {
    // One reader of the question (question-readers.config.mjs): the listed files are the reads that remain.
    files: ["lib/pipeline/**/*.ts"],
    ignores: [...QUESTION_OWNERS, ...Object.keys(QUESTION_TEXT_READERS)],
    rules: { "no-restricted-syntax": ["error", ...questionTextReads] },
  },
];

export default config;
