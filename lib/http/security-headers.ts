/**
 * The browser-side walls (issue 16): a strict Content-Security-Policy with a per-request nonce for
 * pages (proxy.ts), HSTS only where the app is served over https, and headers every response carries
 * (next.config.ts). No imports: next.config.ts loads this file before the app is built.
 */

/**
 * Scripts run only with this request's nonce ('strict-dynamic' lets Next.js's own scripts load the
 * chunks they need); styles come from the app's stylesheets, with inline style attributes allowed
 * (charts and a few components set them, and an attribute cannot carry a nonce). Nothing else: no
 * plugins, no framing, no foreign base URL or form target.
 */
export function contentSecurityPolicy(nonce: string, options: { development?: boolean; https?: boolean } = {}): string {
  const directives = [
    "default-src 'self'",
    // React's development build evaluates code for its error overlay and call stacks.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    // Hot reloading talks over a WebSocket in development.
    `connect-src 'self'${options.development ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ];
  return directives.join("; ");
}

/** Strict-Transport-Security, only for responses served over https (over http browsers ignore it, and it would be a lie). */
export function transportSecurity(https: boolean): string | null {
  return https ? "max-age=63072000; includeSubDomains" : null;
}

/** Headers every response carries, pages and API alike. */
export const SECURITY_HEADERS: { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Cross-Origin-Resource-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()" },
];

/** API routes answer data, never documents: nothing in them may run or be framed. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";
