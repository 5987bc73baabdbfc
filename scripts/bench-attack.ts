// npm run bench -- attack [--seconds N] [--attackers N] [--only http,sign-in] [--base-url URL --pid PID] [--services]
// Sends the attack corpus (tests/support/attack-corpus.ts) in a loop against a running app while a second
// client polls /api/health, then reports the health endpoint's latency during the attack and the server's
// peak memory. Without --base-url it builds the app if needed and starts it (scripts/server.ts) with a fresh
// embedded database, as the e2e tests do. Goals (issue 16): health p99 < 500 ms, memory growth < 300 MB.
// With --services it also starts a throw-away PostgreSQL and Neo4j (tests/support/services), registers a
// knowledge base on each through the app, and adds the sql-postgres and cypher cases (issue 31); it reports
// whether both servers still answer afterwards.
import { readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { DEMO_USERS } from "../lib/db/seed";
import { DEMO_KB_NAMES } from "../lib/demo/seed-catalog";
import { AppClient } from "../tests/support/app-client";
import { type AppServer, startAppServer } from "../tests/support/app-server";
import { HTTP_ATTACKS, queryAttacks, sqlText, UPLOAD_ATTACKS, type AttackCategory } from "../tests/support/attack-corpus";
import { runHttpAttack } from "../tests/support/http-attack-runner";
import { buildIfNeeded } from "./build-if-needed";
import pg from "pg";
import { type Neo4jServer, startNeo4j } from "../tests/support/services/neo4j";
import { type PostgresServer, startPostgres } from "../tests/support/services/postgres";
import { percentile } from "./bench-stats";

interface Args {
  seconds: number;
  attackers: number;
  baseUrl?: string;
  pid?: number;
  pollMs: number;
  /** Categories to send (all when empty). */
  only: string[];
  services: boolean;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { seconds: 60, attackers: 2, pollMs: 100, only: [], services: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === "--services") {
      out.services = true;
      continue;
    }
    if (argv[i] === "--seconds") out.seconds = Number(v);
    else if (argv[i] === "--attackers") out.attackers = Number(v);
    else if (argv[i] === "--base-url") out.baseUrl = v;
    else if (argv[i] === "--pid") out.pid = Number(v);
    else if (argv[i] === "--poll-ms") out.pollMs = Number(v);
    else if (argv[i] === "--only") out.only = (v ?? "").split(",").filter(Boolean);
    else continue;
    i++;
  }
  return out;
}

/** Resident memory (MB) of a process, and of it with all its descendants (query processes, stores, checkers). */
function memoryOf(rootPid: number): { process: number; tree: number } | null {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(entry), Number(fields[1]));
      rss.set(Number(entry), (Number(fields[21]) * 4096) / 1024 / 1024);
    } catch {
      // the process ended while we looked
    }
  }
  if (!rss.has(rootPid)) return null;
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) if (tree.has(ppid) && !tree.has(pid)) grew = tree.add(pid).size > 0;
  }
  let total = 0;
  for (const pid of tree) total += rss.get(pid) ?? 0;
  return { process: rss.get(rootPid)!, tree: total };
}

interface Tally {
  sent: number;
  held: number;
  unexpected: number;
  examples: string[];
}

/** The PostgreSQL database the bench attacks: a table, a schema outside the knowledge base and a view over it, a read-only role. */
async function preparePostgres(
  server: PostgresServer,
): Promise<{ host: string; port: number; database: string; user: string; password: string }> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const password = "bench-reader-pass";
  await admin.query("CREATE DATABASE mosaic_bench");
  await admin.query(`CREATE ROLE bench_reader LOGIN PASSWORD '${password}'`);
  await admin.end();
  const url = new URL(server.url);
  url.pathname = "/mosaic_bench";
  const owner = new pg.Client({ connectionString: url.toString() });
  await owner.connect();
  await owner.query(`
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    CREATE TABLE customers (customer_id serial PRIMARY KEY, name text NOT NULL, country text);
    INSERT INTO customers (name, country) SELECT 'Customer ' || g, 'Country ' || (g % 7) FROM generate_series(1, 500) g;
    CREATE FUNCTION forget_customers() RETURNS int LANGUAGE sql AS 'DELETE FROM customers RETURNING 1';
    CREATE SCHEMA private; CREATE TABLE private.secrets (secret text); INSERT INTO private.secrets VALUES ('the launch code');
    CREATE VIEW leak AS SELECT secret FROM private.secrets;
    GRANT USAGE ON SCHEMA public TO bench_reader; GRANT SELECT ON ALL TABLES IN SCHEMA public TO bench_reader;`);
  await owner.end();
  return { host: url.hostname, port: Number(url.port), database: "mosaic_bench", user: "bench_reader", password };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let postgres: PostgresServer | null = null;
  let neo4j: Neo4jServer | null = null;
  if (args.services) {
    postgres = await startPostgres();
    neo4j = await startNeo4j();
    console.log(`services: PostgreSQL at ${postgres.url}, Neo4j at ${neo4j.uri}`);
  }
  try {
    await attack(args, postgres, neo4j);
  } finally {
    await neo4j?.stop().catch(() => undefined);
    postgres?.stop();
  }
}

async function attack(args: Args, postgres: PostgresServer | null, neo4jServer: Neo4jServer | null) {
  let app: AppServer | null = null;
  let pid = args.pid;
  if (!args.baseUrl) {
    if (!buildIfNeeded()) throw new Error("next build failed");
    app = await startAppServer();
    pid = app.pid;
  }
  const baseUrl = args.baseUrl ?? app!.baseUrl;
  console.log(
    `Mosaic bench: attack against ${baseUrl} for ${args.seconds} s, ${args.attackers} attacker(s), health polled every ${args.pollMs} ms`,
  );
  try {
    const client = new AppClient(baseUrl);
    // Sign-in is throttled by the address the server sees: guesses come from loopback addresses of their own.
    const from = (n: number) => ({ from: `127.0.${1 + (Math.floor(n / 250) % 250)}.${(n % 250) + 1}` });
    const cookie: Record<string, string | null> = { anonymous: null };
    for (const u of DEMO_USERS) cookie[u.role] = await client.signIn(u.email, u.password);
    const objects = (await client.action(cookie.ANALYST, "listSourceObjectsAction", {})).data as { kbId: string; kbName: string }[];
    const sqlKb = objects.find((o) => o.kbName === DEMO_KB_NAMES.sql)!.kbId;
    const rdfKb = objects.find((o) => o.kbName === DEMO_KB_NAMES.sparql)!.kbId;

    let pgKb: string | null = null;
    let cypherKb: string | null = null;
    if (postgres && neo4jServer) {
      const c = await preparePostgres(postgres);
      const registered = await client.register(
        cookie.ADMIN!,
        // Open to every signed-in user: a new knowledge base is private to admins (issue 29), and the attacker is an analyst.
        {
          kind: "SQL",
          name: "Bench PostgreSQL",
          openToEveryone: true,
          connection: { dialect: "postgres", ...c, schema: "public", ssl: false },
        },
        [],
      );
      if (registered.status !== 201)
        throw new Error(`registering the PostgreSQL knowledge base failed: ${JSON.stringify(registered.json)}`);
      pgKb = registered.json!.id as string;
      const graph = await client.register(
        cookie.ADMIN!,
        {
          kind: "CYPHER",
          name: "Bench Neo4j",
          openToEveryone: true,
          connection: { uri: neo4jServer.uri, user: neo4jServer.user, password: neo4jServer.password },
        },
        [],
      );
      if (graph.status !== 201) throw new Error(`registering the Neo4j knowledge base failed: ${JSON.stringify(graph.json)}`);
      cypherKb = graph.json!.id as string;
    }

    type Job = { category: AttackCategory | "sign-in"; name: string; run: (n: number) => Promise<boolean> };
    const query = (kbId: string, language: "sql" | "sparql" | "cypher", text: string, expect: string, says: RegExp) => async () => {
      const r = await client.action(cookie.ANALYST, "captureContextAction", {
        kbId,
        kind: "NATIVE_QUERY",
        params: { query: { language, text } },
      });
      const said = r.error?.message ?? JSON.stringify(r.data ?? "");
      if (expect === "refused") return r.error?.code === "VALIDATION" && says.test(said);
      return said.length < 2 * 1024 * 1024 && (!r.error || says.test(r.error.message));
    };
    const allJobs: Job[] = [
      ...queryAttacks("sql-sqlite").map((a) => ({
        category: a.category,
        name: a.name,
        run: query(sqlKb, "sql", sqlText(a, { table: "customers", column: "name" }), a.expect, a.says),
      })),
      ...queryAttacks("sparql").map((a) => ({ category: a.category, name: a.name, run: query(rdfKb, "sparql", a.text, a.expect, a.says) })),
      // The bench's role reads only public: what reaches further is stopped by PostgreSQL's permissions first (contained).
      ...(pgKb
        ? queryAttacks("sql-postgres").map((a) => ({
            category: a.category,
            name: a.name,
            run: query(
              pgKb!,
              "sql",
              sqlText(a, { table: "customers", column: "name" }),
              a.reaches ? "contained" : a.expect,
              a.reaches ? /may not read this|is not allowed/ : a.says,
            ),
          }))
        : []),
      ...(cypherKb
        ? queryAttacks("cypher").map((a) => ({
            category: a.category,
            name: a.name,
            run: query(cypherKb!, "cypher", a.text, a.expect, a.says),
          }))
        : []),
      ...HTTP_ATTACKS.map((a) => ({
        category: a.category,
        name: a.name,
        run: async () => {
          const outcome = await runHttpAttack(a, { client, cookies: cookie, sqlKb });
          if (!outcome.held) throw new Error(outcome.said.slice(0, 160));
          return true;
        },
      })),
      ...UPLOAD_ATTACKS.map((a, i) => ({
        category: a.category,
        name: a.name,
        run: async (n: number) => {
          const name = `Bench upload ${i}-${n}`;
          const connection = { SQL: { dialect: "sqlite" }, SPARQL: { mode: "embedded" }, DOCUMENTS: { language: "en" } }[a.kind];
          const r = await client.register(
            cookie.ADMIN!,
            { kind: a.kind, name, connection },
            a.files.map((f) => ({ name: f.name, bytes: f.bytes() })),
          );
          if (r.status === 201) {
            await client.action(cookie.ADMIN, "deleteKbAction", { id: r.json!.id, confirmName: name });
            return a.says.test("contained");
          }
          return a.says.test(String((r.json?.error as { message?: string } | undefined)?.message));
        },
      })),
      {
        category: "sign-in",
        name: "wrong passwords for the admin from rotating addresses",
        run: async (n) =>
          /CredentialsSignin|TooManyAttempts/.test(
            await client.signInOutcome(DEMO_USERS[0]!.email, `guess-${n}`, {
              ...from(1_000 + (n % 40)),
              headers: { "X-Forwarded-For": "127.0.0.1" },
            }),
          ),
      },
    ];

    const jobs = args.only.length ? allJobs.filter((j) => args.only.includes(j.category)) : allJobs;
    if (!jobs.length) throw new Error(`No attack in the categories ${args.only.join(", ")}.`);
    // Categories take turns, so every one is reached in a short run whatever the size of the others.
    const byCategory = new Map<string, Job[]>();
    for (const j of jobs) byCategory.set(j.category, [...(byCategory.get(j.category) ?? []), j]);
    const interleaved: Job[] = [];
    for (let i = 0; interleaved.length < jobs.length; i++) for (const list of byCategory.values()) if (list[i]) interleaved.push(list[i]!);
    jobs.splice(0, jobs.length, ...interleaved);

    const tallies = new Map<string, Tally>();
    const health: number[] = [];
    let healthFailures = 0;
    const baseline = pid ? memoryOf(pid) : null;
    let peak = baseline ? { ...baseline } : null;
    const deadline = Date.now() + args.seconds * 1000;
    let n = 0;

    const poller = (async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        try {
          const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(10_000) });
          if (!res.ok) healthFailures++;
          await res.arrayBuffer();
        } catch {
          healthFailures++;
        }
        health.push(performance.now() - started);
        if (pid) {
          const m = memoryOf(pid);
          if (m && peak) peak = { process: Math.max(peak.process, m.process), tree: Math.max(peak.tree, m.tree) };
        }
        await new Promise((r) => setTimeout(r, args.pollMs));
      }
    })();

    /** Every distinct case that got through, with what the server said the first time. */
    const through = new Map<string, string>();
    const attacker = async (id: number) => {
      for (let k = id; Date.now() < deadline; k += args.attackers) {
        const job = jobs[k % jobs.length]!;
        const tally = tallies.get(job.category) ?? { sent: 0, held: 0, unexpected: 0, examples: [] };
        tallies.set(job.category, tally);
        tally.sent++;
        let held = false;
        try {
          held = await job.run(n++);
        } catch (e) {
          if (!through.has(job.name)) through.set(job.name, (e as Error).message.slice(0, 160));
        }
        if (held) tally.held++;
        else {
          tally.unexpected++;
          if (!through.has(job.name)) through.set(job.name, "");
          if (tally.examples.length < 3 && !tally.examples.includes(job.name)) tally.examples.push(job.name);
        }
      }
    };
    await Promise.all([poller, ...Array.from({ length: args.attackers }, (_, i) => attacker(i))]);

    const sorted = [...health].sort((a, b) => a - b);
    const ms = (p: number) => +percentile(sorted, p).toFixed(1);
    console.log(
      `\nload average before/after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} (other work on this machine skews the figures)`,
    );
    console.log("\nattacks (category: sent, refused or contained, unexpected)");
    for (const [category, t] of [...tallies].sort()) {
      console.log(
        `  ${category.padEnd(12)} ${String(t.sent).padStart(6)} ${String(t.held).padStart(6)} ${String(t.unexpected).padStart(6)}${t.examples.length ? `   e.g. ${t.examples.join("; ")}` : ""}`,
      );
    }
    console.log(`\ncases through (distinct): ${through.size} of ${jobs.length}`);
    for (const [name, said] of through) console.log(`  - ${name}${said ? `: ${said}` : ""}`);
    console.log(
      `\n/api/health during the attack: n=${sorted.length}, p50 ${ms(50)} ms, p95 ${ms(95)} ms, p99 ${ms(99)} ms, max ${ms(100)} ms, failures ${healthFailures}`,
    );
    if (baseline && peak) {
      console.log(
        `server memory (RSS): ${baseline.process.toFixed(0)} MB before, peak ${peak.process.toFixed(0)} MB, growth ${(peak.process - baseline.process).toFixed(0)} MB` +
          `; with its helper processes ${baseline.tree.toFixed(0)} → peak ${peak.tree.toFixed(0)} MB (growth ${(peak.tree - baseline.tree).toFixed(0)} MB)`,
      );
    } else {
      console.log("server memory: not measured (pass --pid with --base-url)");
    }
    let servicesAnswer: Record<string, boolean> | null = null;
    if (pgKb && cypherKb) {
      // Each engine's own health after the attack: the servers are still up and answering.
      const alive = async (id: string) => (await client.action(cookie.ADMIN, "checkKbAction", { id })).data as { ok?: boolean } | undefined;
      servicesAnswer = { postgres: (await alive(pgKb))?.ok === true, neo4j: (await alive(cypherKb))?.ok === true };
      console.log(
        `services after the attack: PostgreSQL ${servicesAnswer.postgres ? "answers" : "DOES NOT ANSWER"}, Neo4j ${servicesAnswer.neo4j ? "answers" : "DOES NOT ANSWER"}`,
      );
    }
    const growth = baseline && peak ? peak.process - baseline.process : null;
    const summary = {
      seconds: args.seconds,
      attackers: args.attackers,
      corpus: { ...Object.fromEntries(jobs.reduce((m, j) => m.set(j.category, (m.get(j.category) ?? 0) + 1), new Map<string, number>())) },
      sent: [...tallies.values()].reduce((s, t) => s + t.sent, 0),
      unexpected: [...tallies.values()].reduce((s, t) => s + t.unexpected, 0),
      casesThrough: through.size,
      health: { n: sorted.length, p50: ms(50), p95: ms(95), p99: ms(99), max: ms(100), failures: healthFailures },
      memoryMb:
        baseline && peak
          ? {
              before: Math.round(baseline.process),
              peak: Math.round(peak.process),
              growth: Math.round(growth!),
              treeBefore: Math.round(baseline.tree),
              treePeak: Math.round(peak.tree),
            }
          : null,
      servicesAnswer,
      goals: { healthP99Under500ms: ms(99) < 500, memoryGrowthUnder300MB: growth === null ? null : growth < 300 },
    };
    console.log(`\n${JSON.stringify(summary)}`);
  } finally {
    await app?.stop();
  }
}

await main();
process.exit(0);
