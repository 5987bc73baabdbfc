import "server-only";
import type { z } from "zod";
import type { ApiScope } from "../../auth/api-keys.validation";
import { type Handler, type RouteOptions, withAuthRoute } from "../../http/route";

/**
 * The wrapper of every /api/v1 route: lib/http/route.ts's (same-origin rule for cookie requests, bounded
 * bodies, role check) with an API-key scope and errors as RFC 9457 problem details. A request with
 * `Authorization: Bearer` and no cookie skips the same-origin rule: a page on another site cannot make a
 * browser attach a bearer token, so such a request cannot be forged cross-site (CSRF rides on ambient
 * credentials, i.e. cookies). A request with a cookie is a session request and keeps the rule, even if it
 * also carries a bearer header (lib/http/credentials.ts).
 */
export function apiRoute<S extends z.ZodType | undefined = undefined, P = Record<string, string>>(
  options: Omit<RouteOptions<S>, "problemDetails" | "scope"> & { scope: ApiScope },
  handler: Handler<S, P>,
) {
  return withAuthRoute<S, P>({ ...options, problemDetails: true }, handler);
}
