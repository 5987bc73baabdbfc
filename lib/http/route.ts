import "server-only";
import { NextResponse, type NextRequest } from "next/server";
import type { z } from "zod";
import { type CurrentUser, getCurrentUser } from "../auth/session";
import type { Role } from "../db/generated/enums";
import { AppError, httpStatusFor, toClientError } from "../errors";

interface RouteOptions<S extends z.ZodType | undefined> {
  name: string;
  roles?: readonly Role[];
  /** Validates the JSON body (POST/PUT/PATCH) or, for GET, the query string. */
  input?: S;
}

type Handler<S extends z.ZodType | undefined, P> = (args: {
  req: NextRequest;
  user: CurrentUser;
  input: S extends z.ZodType ? z.infer<S> : undefined;
  params: P;
}) => Promise<Response | unknown>;

/**
 * The route-handler twin of authActionClient: session and role check, input validation, and the same
 * allow-listed error mapping (JSON `{error: ClientError}` with the matching HTTP status).
 */
export function withAuthRoute<S extends z.ZodType | undefined = undefined, P = Record<string, string>>(
  options: RouteOptions<S>,
  handler: Handler<S, P>,
) {
  return async (req: NextRequest, ctx: { params: Promise<P> }): Promise<Response> => {
    try {
      const user = await getCurrentUser();
      if (!user) throw new AppError("UNAUTHENTICATED", "Sign in to use this endpoint.");
      if (options.roles && !options.roles.includes(user.role)) {
        throw new AppError("FORBIDDEN", "You do not have permission to do this.");
      }
      let input: unknown = undefined;
      if (options.input) {
        let raw: unknown;
        if (req.method === "GET" || req.method === "HEAD") {
          raw = Object.fromEntries(req.nextUrl.searchParams);
        } else {
          try {
            raw = await req.json();
          } catch {
            throw new AppError("VALIDATION", "The request body must be JSON.");
          }
        }
        const parsed = options.input.safeParse(raw);
        if (!parsed.success) {
          throw new AppError(
            "VALIDATION",
            "Some fields are invalid.",
            Object.fromEntries(parsed.error.issues.map((i) => [i.path.join(".") || "body", i.message])),
          );
        }
        input = parsed.data;
      }
      const result = await handler({ req, user, input: input as never, params: await ctx.params });
      return result instanceof Response ? result : NextResponse.json(result);
    } catch (error) {
      const clientError = toClientError(error, { route: options.name });
      return NextResponse.json({ error: clientError }, { status: httpStatusFor(clientError) });
    }
  };
}
