import { type NextRequest, NextResponse } from "next/server";
import { sameOriginVerdict } from "@/lib/http/same-origin";
import { contentSecurityPolicy, transportSecurity } from "@/lib/http/security-headers";

/**
 * Runs before every page:
 * - a fresh nonce and a strict Content-Security-Policy per request. Next.js reads the nonce from the
 *   request's CSP header and puts it on its own scripts; nothing else may run (no inline script an
 *   attacker could inject, no script from another origin, no plugin, no framing).
 * - the same-origin rule route handlers apply (lib/http/same-origin.ts) for every state-changing request
 *   to a page, i.e. every server action: Next.js compares an action's Origin with its Host, and this adds
 *   Sec-Fetch-Site, so the two kinds of endpoint answer a cross-site request alike (403).
 * - convenience only: a visitor with no session cookie at all goes straight to sign-in, remembering the
 *   page they asked for. Every page, action and route still checks the session and role on the server.
 */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

function needsSessionRedirect(req: NextRequest): boolean {
  const path = req.nextUrl.pathname;
  if (path === "/" || path === "/signin" || path.startsWith("/signin/")) return false;
  return !SESSION_COOKIES.some((c) => req.cookies.has(c));
}

function servedOverHttps(req: NextRequest): boolean {
  const forwarded = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return (forwarded ?? req.nextUrl.protocol.replace(/:$/, "")) === "https";
}

export function proxy(req: NextRequest) {
  const origin = sameOriginVerdict(req.method, (n) => req.headers.get(n), process.env.NEXTAUTH_URL);
  if (!origin.ok) {
    return NextResponse.json(
      { error: { code: "FORBIDDEN", message: `Refused ${origin.reason}: changes may only be made from Mosaic's own pages.` } },
      { status: 403 },
    );
  }
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const https = servedOverHttps(req);
  const csp = contentSecurityPolicy(nonce, { development: process.env.NODE_ENV === "development", https });
  let res: NextResponse;
  if (needsSessionRedirect(req)) {
    const url = req.nextUrl.clone();
    url.pathname = "/signin";
    url.search = `?callbackUrl=${encodeURIComponent(req.nextUrl.pathname + req.nextUrl.search)}`;
    res = NextResponse.redirect(url);
  } else {
    const headers = new Headers(req.headers);
    headers.set("x-nonce", nonce);
    headers.set("Content-Security-Policy", csp);
    res = NextResponse.next({ request: { headers } });
  }
  res.headers.set("Content-Security-Policy", csp);
  const hsts = transportSecurity(https);
  if (hsts) res.headers.set("Strict-Transport-Security", hsts);
  return res;
}

export const config = {
  // Pages only: API routes answer JSON (next.config.ts gives them their own headers), and static files need no nonce.
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico|icon.svg|robots.txt).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
