import { AppClient } from "../tests/support/app-client";
import { HTTP_ATTACKS } from "../tests/support/attack-corpus";
import { runHttpAttack } from "../tests/support/http-attack-runner";
const base = "http://localhost:3917";
const client = new AppClient(base);
const cookies: Record<string, string | null> = { anonymous: null };
cookies.ADMIN = await client.signIn("admin@mosaic.local", "admin-demo-pass");
cookies.ANALYST = await client.signIn("analyst@mosaic.local", "analyst-demo-pass");
cookies.USER = await client.signIn("user@mosaic.local", "user-demo-pass");
const only = process.argv[2];
for (const a of HTTP_ATTACKS) {
  if (only && !a.name.includes(only)) continue;
  const t = performance.now();
  const o = await runHttpAttack(a, { client, cookies, sqlKb: "x" });
  console.log(o.held ? "held   " : "THROUGH", (performance.now() - t).toFixed(0).padStart(6), "ms", a.name, "|", o.said.slice(0, 160).replace(/\n/g, " "));
}
process.exit(0);
