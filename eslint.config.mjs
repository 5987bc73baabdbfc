import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  { ignores: ["node_modules/**", ".next/**", ".data/**", "lib/db/generated/**", "next-env.d.ts", "tmp/**", "test-results/**"] },
];

export default config;
