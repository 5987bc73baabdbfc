// npm run test:e2e: builds the app if needed, starts it on a free port with a fresh embedded database,
// and drives Debian's Chromium through playwright-core (tests/e2e). Screenshots land in test-results/screenshots.
import { spawnSync } from "node:child_process";

const r = spawnSync("npx", ["vitest", "run", "--project", "e2e", ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(r.status ?? 1);
