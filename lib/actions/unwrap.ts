import type { ClientError } from "@/lib/errors";

/**
 * Turns a next-safe-action result into data or a thrown ClientError-shaped Error, so TanStack Query
 * mutations see failures as errors with a user-facing message and field messages.
 */
export class ActionFailure extends Error {
  constructor(
    message: string,
    public readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

interface SafeResult<T> {
  data?: T;
  serverError?: ClientError;
  validationErrors?: unknown;
}

function flattenValidation(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === "object") {
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      if (key === "_errors") continue;
      const errs = (value as { _errors?: string[] })?._errors;
      if (errs?.length) out[key] = errs[0];
    }
  }
  return out;
}

export async function unwrap<T>(promise: Promise<SafeResult<T> | undefined>): Promise<T> {
  let result: SafeResult<T> | undefined;
  try {
    result = await promise;
  } catch {
    throw new ActionFailure("Could not reach the server. Check your connection and try again.");
  }
  if (result?.serverError) throw new ActionFailure(result.serverError.message, result.serverError.fields);
  if (result?.validationErrors) throw new ActionFailure("Some fields need attention.", flattenValidation(result.validationErrors));
  if (!result || result.data === undefined) throw new ActionFailure("The server returned no result. Try again.");
  return result.data;
}
