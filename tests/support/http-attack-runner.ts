import type { AppClient } from "./app-client";
import type { Actor, HttpAttack, RawHttpRequest } from "./attack-corpus";
import { rawRequest } from "./raw-http";

/**
 * Sends one HTTP attack of the corpus and judges what came back, the same way for the e2e security
 * test and `npm run bench -- attack`: held means refused with one of the expected answers, nothing
 * secret in it, the upload stopped early enough, and every redirect kept on the app's origin.
 */

export interface HttpAttackContext {
  client: AppClient;
  cookies: Partial<Record<Actor, string | null>>;
  /** Replaces "{sqlKb}" in action inputs. */
  sqlKb: string;
}

export interface HttpAttackOutcome {
  held: boolean;
  /** What the server said, for messages (status, error, where it redirected). */
  said: string;
}

const FORGED = "next-auth.session-token=eyJhbGciOiJub25lIn0.eyJ1aWQiOiJ4In0.";
const DEFAULT_SECRET = /passwordHash|secretsCiphertext|\$argon2|root:x:0:0|at \S+ \(\/|node_modules\//;

/** Whether a redirect target, read as a browser reads it, stays on the app's origin. */
export function staysOnOrigin(target: string | undefined, baseUrl: string): boolean {
  if (!target) return false;
  try {
    const url = new URL(target, baseUrl);
    return url.origin === new URL(baseUrl).origin && !url.pathname.startsWith("//");
  } catch {
    return false;
  }
}

function cookieFor(attack: HttpAttack, ctx: HttpAttackContext): string | null {
  return attack.name.includes("forged") ? FORGED : (ctx.cookies[attack.as] ?? null);
}

async function sendRaw(r: RawHttpRequest, cookie: string | null, baseUrl: string) {
  return rawRequest(`${baseUrl}${r.path}`, {
    method: r.method,
    headers: { ...(cookie ? { cookie } : {}), ...r.headers },
    body: r.body,
    stream: r.stream,
    from: r.from,
  });
}

/** next-auth's sign-out with a callbackUrl: its redirect callback decides the URL it answers with. */
async function signOutTo(client: AppClient, cookie: string | null, callbackUrl: string) {
  const csrf = await rawRequest(`${client.baseUrl}/api/auth/csrf`, { method: "GET", headers: cookie ? { cookie } : {} });
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  const jar = [cookie, ...(csrf.headers["set-cookie"] ?? []).map((c) => c.split(";")[0])].filter(Boolean).join("; ");
  const res = await rawRequest(`${client.baseUrl}/api/auth/signout`, {
    method: "POST",
    headers: { cookie: jar, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, callbackUrl, json: "true" }).toString(),
  });
  let url: string | undefined;
  try {
    url = (JSON.parse(res.text) as { url?: string }).url;
  } catch {
    // not JSON: judged by the status
  }
  return { status: res.status, url };
}

export async function runHttpAttack(attack: HttpAttack, ctx: HttpAttackContext): Promise<HttpAttackOutcome> {
  const { client } = ctx;
  const cookie = cookieFor(attack, ctx);
  const secret = attack.mustNotContain ?? DEFAULT_SECRET;
  const req = attack.request;

  if ("action" in req) {
    const input = JSON.parse(JSON.stringify(req.input).replaceAll("{sqlKb}", ctx.sqlKb));
    const r = await client.action(cookie, req.action, input, req.headers);
    const said = JSON.stringify(r);
    return { held: attack.refusedWith.includes(r.error?.code ?? r.status) && !secret.test(said), said };
  }

  if ("signOutTo" in req) {
    const r = await signOutTo(client, cookie, req.signOutTo);
    const said = `${r.status} → ${r.url}`;
    return { held: attack.refusedWith.includes(r.status) && staysOnOrigin(r.url, client.baseUrl), said };
  }

  if ("raw" in req) {
    const r = req.raw;
    if (r.concurrent) {
      const answers = await Promise.all(Array.from({ length: r.concurrent }, () => sendRaw(r, cookie, client.baseUrl)));
      const limited = answers.filter((a) => a.status === 429);
      const ran = answers.filter((a) => a.status === 200);
      const said = `${ran.length} ran, ${limited.length} refused with 429 (Retry-After ${limited[0]?.headers["retry-after"] ?? "–"}), others: ${answers
        .filter((a) => a.status !== 200 && a.status !== 429)
        .map((a) => a.status)
        .join(",")}`;
      const held =
        limited.length > 0 &&
        limited.every((a) => /^\d+$/.test(String(a.headers["retry-after"] ?? ""))) &&
        ran.length + limited.length === answers.length &&
        ran.every((a) => a.text.includes('"result"'));
      return { held, said };
    }
    let a: Awaited<ReturnType<typeof sendRaw>>;
    try {
      a = await sendRaw(r, cookie, client.baseUrl);
    } catch (e) {
      const sent = (e as { sentBytes?: number }).sentBytes ?? 0;
      return { held: false, said: `no answer (${(e as Error).message}) after ${sent} bytes` };
    }
    const said = `${a.status}${a.headers.location ? ` → ${a.headers.location}` : ""}, ${(a.sentBytes / 1024 / 1024).toFixed(1)} MB sent in ${a.ms.toFixed(0)} ms: ${a.text.slice(0, 200)}`;
    const held =
      attack.refusedWith.includes(a.status) &&
      !secret.test(a.text) &&
      (attack.maxSentBytes === undefined || a.sentBytes <= attack.maxSentBytes) &&
      (!attack.staysOnOrigin || staysOnOrigin(a.headers.location, client.baseUrl));
    return { held, said };
  }

  const r = await client.request(cookie, req.method, req.path, req.json);
  return { held: attack.refusedWith.includes(r.status) && !secret.test(r.text), said: `${r.status}: ${r.text.slice(0, 300)}` };
}
