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
  /**
   * multipart/form-data: the input is the JSON in the `payload` field and the uploads (field `files`)
   * are handed to the handler; `maxUploadBytes` bounds their total size.
   */
  multipart?: { maxUploadBytes: number };
}

export interface UploadedFormFile {
  name: string;
  bytes: Buffer;
  mediaType: string;
}

type Handler<S extends z.ZodType | undefined, P> = (args: {
  req: NextRequest;
  user: CurrentUser;
  input: S extends z.ZodType ? z.infer<S> : undefined;
  files: UploadedFormFile[];
  params: P;
}) => Promise<Response | unknown>;

async function readMultipart(req: NextRequest, maxBytes: number): Promise<{ raw: unknown; files: UploadedFormFile[] }> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > maxBytes + 1_000_000)
    throw new AppError("VALIDATION", `The upload is too large (limit ${Math.round(maxBytes / 1e6)} MB).`);
  let form: FormData;
  try {
    form = await req.formData();
  } catch {
    throw new AppError("VALIDATION", "The upload could not be read. Send it as multipart/form-data.");
  }
  const payload = form.get("payload");
  let raw: unknown = {};
  if (typeof payload === "string") {
    try {
      raw = JSON.parse(payload);
    } catch {
      throw new AppError("VALIDATION", "The payload field must be JSON.");
    }
  }
  const files: UploadedFormFile[] = [];
  let total = 0;
  for (const entry of form.getAll("files")) {
    if (typeof entry === "string") continue;
    total += entry.size;
    if (total > maxBytes)
      throw new AppError("VALIDATION", `The upload is too large (limit ${Math.round(maxBytes / 1e6)} MB).`, { files: "Too large." });
    files.push({
      name: entry.name || "upload",
      bytes: Buffer.from(await entry.arrayBuffer()),
      mediaType: entry.type || "application/octet-stream",
    });
  }
  return { raw, files };
}

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
      let files: UploadedFormFile[] = [];
      if (options.input) {
        let raw: unknown;
        if (options.multipart) {
          ({ raw, files } = await readMultipart(req, options.multipart.maxUploadBytes));
        } else if (req.method === "GET" || req.method === "HEAD") {
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
      const result = await handler({ req, user, input: input as never, files, params: await ctx.params });
      return result instanceof Response ? result : NextResponse.json(result);
    } catch (error) {
      const clientError = toClientError(error, { route: options.name });
      return NextResponse.json({ error: clientError }, { status: httpStatusFor(clientError) });
    }
  };
}
